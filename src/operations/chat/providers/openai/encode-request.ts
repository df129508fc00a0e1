import { invalidRequest } from '../../../../core/errors.ts'
import type { AudioPart, ChatRequest, ContentPart, FilePart, ImagePart, Message } from '../../core/ir.ts'
import type { Target } from '../../../../core/provider.ts'

type OpenAiPart = Record<string, unknown>
type OpenAiContent = string | OpenAiPart[]

const visible = (part: ContentPart): part is Extract<ContentPart, { type: 'text' }> | ImagePart | FilePart | AudioPart =>
  part.type === 'text' || part.type === 'image' || part.type === 'file' || part.type === 'audio'

function encodeContent(parts: ContentPart[]): OpenAiContent {
  const usable = parts.filter(visible)
  if (usable.every((part) => part.type === 'text')) return usable.map((part) => (part as { text: string }).text).join('')
  return usable.map(encodePart)
}

function encodePart(part: Extract<ContentPart, { type: 'text' }> | ImagePart | FilePart | AudioPart): OpenAiPart {
  switch (part.type) {
    case 'text':
      return { type: 'text', text: part.text }
    case 'image':
      return { type: 'image_url', image_url: { url: part.url ?? `data:${part.mediaType ?? 'image/png'};base64,${part.data ?? ''}` } }
    case 'file':
      return encodeFile(part)
    case 'audio':
      return encodeAudio(part)
  }
}

/** Chat Completions takes a document only inline, as a `file` part with a data: URL (never as an image_url). */
function encodeFile(part: FilePart): OpenAiPart {
  if (part.data === undefined) {
    throw invalidRequest(
      'A document given by URL cannot be sent to an OpenAI upstream, which takes documents only inline; send its bytes (base64) instead.',
      'messages',
    )
  }
  return {
    type: 'file',
    file: {
      file_data: `data:${part.mediaType};base64,${part.data}`,
      filename: part.filename ?? (part.mediaType === 'application/pdf' ? 'document.pdf' : 'document'),
    },
  }
}

const audioFormats: Record<string, string> = {
  'audio/wav': 'wav',
  'audio/x-wav': 'wav',
  'audio/wave': 'wav',
  'audio/mpeg': 'mp3',
  'audio/mp3': 'mp3',
}

function encodeAudio(part: AudioPart): OpenAiPart {
  const format = audioFormats[part.mediaType]
  if (!format)
    throw invalidRequest(
      `Audio of type '${part.mediaType}' cannot be sent to an OpenAI upstream, which takes only wav and mp3.`,
      'messages',
    )
  return { type: 'input_audio', input_audio: { data: part.data, format } }
}

/** One IR message may become several OpenAI messages: tool results each travel as their own `tool` message. */
function encodeMessage(message: Message): Record<string, unknown>[] {
  if (message.role === 'tool' || message.content.some((part) => part.type === 'tool-result')) {
    const results = message.content.filter((part) => part.type === 'tool-result')
    const rest = message.content.filter((part) => part.type !== 'tool-result')
    const encoded: Record<string, unknown>[] = results.map((part) => ({
      role: 'tool',
      tool_call_id: part.toolCallId,
      content: part.content,
    }))
    // A tool message holds text only: what the tools returned beside it (screenshots) follows in a user message.
    const media = results.flatMap((part) => part.media ?? [])
    if (media.length || rest.some(visible)) encoded.push({ role: 'user', content: encodeContent([...media, ...rest]) })
    return encoded
  }
  if (message.role === 'assistant') {
    const calls = message.content.filter((part) => part.type === 'tool-call')
    const text = encodeContent(message.content)
    const encoded: Record<string, unknown> = { role: 'assistant', content: text === '' && calls.length ? null : text }
    if (calls.length) {
      encoded.tool_calls = calls.map((call) => ({
        id: call.id,
        type: 'function',
        function: { name: call.name, arguments: call.arguments || '{}' },
      }))
    }
    return [encoded]
  }
  return [{ role: message.role, content: encodeContent(message.content) }]
}

/** IR request → a Chat Completions body. */
export function encodeOpenAiRequest(request: ChatRequest, target: Target): { path: string; body: Record<string, unknown> } {
  const body: Record<string, unknown> = {
    model: target.upstreamModel,
    messages: [...request.system.map((text) => ({ role: 'system', content: text })), ...request.messages.flatMap(encodeMessage)],
  }
  if (request.stream) {
    body.stream = true
    body.stream_options = { include_usage: true }
  }
  if (request.maxOutputTokens !== undefined) body.max_completion_tokens = request.maxOutputTokens
  if (request.temperature !== undefined) body.temperature = request.temperature
  if (request.topP !== undefined) body.top_p = request.topP
  if (request.stop?.length) body.stop = request.stop
  if (request.seed !== undefined) body.seed = request.seed
  if (request.presencePenalty !== undefined) body.presence_penalty = request.presencePenalty
  if (request.frequencyPenalty !== undefined) body.frequency_penalty = request.frequencyPenalty
  if (request.logprobs) {
    body.logprobs = true
    if (request.logprobs.top > 0) body.top_logprobs = request.logprobs.top
  }
  if (request.user !== undefined) body.user = request.user
  if (request.tools?.length) {
    body.tools = request.tools.map((tool) => ({
      type: 'function',
      function: {
        name: tool.name,
        description: tool.description,
        parameters: tool.parameters,
        ...(tool.strict !== undefined && { strict: tool.strict }),
      },
    }))
  }
  if (request.toolChoice) {
    const choice = request.toolChoice
    body.tool_choice = choice.type === 'tool' ? { type: 'function', function: { name: choice.name } } : choice.type
  }
  if (request.parallelToolCalls !== undefined && request.tools?.length) body.parallel_tool_calls = request.parallelToolCalls
  if (request.responseFormat) {
    const format = request.responseFormat
    body.response_format =
      format.type === 'json-schema'
        ? {
            type: 'json_schema',
            json_schema: {
              name: format.name ?? 'response',
              schema: format.schema,
              ...(format.strict !== undefined && { strict: format.strict }),
            },
          }
        : { type: format.type === 'json' ? 'json_object' : 'text' }
  }
  if (request.reasoning?.effort) body.reasoning_effort = request.reasoning.effort
  return { path: '/chat/completions', body }
}
