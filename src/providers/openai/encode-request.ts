import type { ChatRequest, ContentPart, Message } from '../../core/ir.ts'
import type { Target } from '../../core/provider.ts'

type OpenAiContent = string | ({ type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string } })[]

function encodeContent(parts: ContentPart[]): OpenAiContent {
  const usable = parts.filter((part) => part.type === 'text' || part.type === 'image')
  if (usable.every((part) => part.type === 'text')) return usable.map((part) => (part as { text: string }).text).join('')
  return usable.map((part) => part.type === 'text'
    ? { type: 'text' as const, text: part.text }
    : { type: 'image_url' as const, image_url: { url: imageUrl(part as Extract<ContentPart, { type: 'image' }>) } })
}

function imageUrl(part: Extract<ContentPart, { type: 'image' }>): string {
  return part.url ?? `data:${part.mediaType ?? 'image/png'};base64,${part.data ?? ''}`
}

/** One IR message may become several OpenAI messages: tool results each travel as their own `tool` message. */
function encodeMessage(message: Message): Record<string, unknown>[] {
  if (message.role === 'tool' || message.content.some((part) => part.type === 'tool-result')) {
    const results = message.content.filter((part) => part.type === 'tool-result')
    const rest = message.content.filter((part) => part.type !== 'tool-result')
    const encoded = results.map((part) => ({ role: 'tool', tool_call_id: part.toolCallId, content: part.content }))
    if (rest.some((part) => part.type === 'text' || part.type === 'image')) encoded.push({ role: 'user', content: encodeContent(rest) } as never)
    return encoded
  }
  if (message.role === 'assistant') {
    const calls = message.content.filter((part) => part.type === 'tool-call')
    const text = encodeContent(message.content)
    const encoded: Record<string, unknown> = { role: 'assistant', content: text === '' && calls.length ? null : text }
    if (calls.length) {
      encoded.tool_calls = calls.map((call) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments || '{}' } }))
    }
    return [encoded]
  }
  return [{ role: message.role, content: encodeContent(message.content) }]
}

/** IR request → a Chat Completions body. */
export function encodeOpenAiRequest(request: ChatRequest, target: Target): { path: string; body: Record<string, unknown> } {
  const body: Record<string, unknown> = {
    model: target.upstreamModel,
    messages: [
      ...request.system.map((text) => ({ role: 'system', content: text })),
      ...request.messages.flatMap(encodeMessage),
    ],
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
  if (request.user !== undefined) body.user = request.user
  if (request.tools?.length) {
    body.tools = request.tools.map((tool) => ({
      type: 'function',
      function: { name: tool.name, description: tool.description, parameters: tool.parameters, ...(tool.strict !== undefined && { strict: tool.strict }) },
    }))
  }
  if (request.toolChoice) {
    const choice = request.toolChoice
    body.tool_choice = choice.type === 'tool' ? { type: 'function', function: { name: choice.name } } : choice.type
  }
  if (request.parallelToolCalls !== undefined && request.tools?.length) body.parallel_tool_calls = request.parallelToolCalls
  if (request.responseFormat) {
    const format = request.responseFormat
    body.response_format = format.type === 'json-schema'
      ? { type: 'json_schema', json_schema: { name: format.name ?? 'response', schema: format.schema, ...(format.strict !== undefined && { strict: format.strict }) } }
      : { type: format.type === 'json' ? 'json_object' : 'text' }
  }
  if (request.reasoning?.effort) body.reasoning_effort = request.reasoning.effort
  return { path: '/chat/completions', body }
}
