import { invalidRequest } from '../../../../core/errors.ts'
import type { ChatRequest, ContentPart, Message, ResponseFormat, ToolChoice, ToolDefinition } from '../../core/ir.ts'
import {
  isObject,
  type Json,
  optionalBoolean,
  optionalNumber,
  optionalSchema,
  optionalStops,
  optionalString,
  readMessages,
  requireArray,
  requireObject,
  requireString,
} from '../../../../protocols/shared/validate.ts'
import { inspectChatBilling } from './billing-checks.ts'

const roles = ['system', 'developer', 'user', 'assistant', 'tool', 'function']
/** The roles an error names: `function` is accepted for old clients but not advertised. */
const rolesShown = roles.slice(0, 5).join(', ')

/** `input_audio.format` → the media type every other vendor names audio by. */
const audioTypes: Record<string, string> = { wav: 'audio/wav', mp3: 'audio/mpeg' }

/** A `file` part: inline `file_data` (a data: URL or bare base64) is carried; an uploaded `file_id` cannot be read here. */
function decodeFile(part: Json, field: string): ContentPart {
  const file = requireObject(part.file, `${field}.file`)
  if (file.file_id != null)
    throw invalidRequest(
      `'${field}.file.file_id' refers to an uploaded file, which this gateway cannot read; send the file inline as 'file_data'.`,
      `${field}.file.file_id`,
    )
  const data = requireString(file.file_data, `${field}.file.file_data`)
  const filename = optionalString(file.filename, `${field}.file.filename`)
  const inline = /^data:([^;,]+);base64,(.*)$/s.exec(data)
  return { type: 'file', mediaType: inline?.[1] ?? 'application/pdf', data: inline ? inline[2]! : data, ...(filename && { filename }) }
}

function decodeAudio(part: Json, field: string): ContentPart {
  const audio = requireObject(part.input_audio, `${field}.input_audio`)
  const format = requireString(audio.format, `${field}.input_audio.format`)
  const mediaType = audioTypes[format]
  if (!mediaType)
    throw invalidRequest(`Invalid value for '${field}.input_audio.format': expected 'wav' or 'mp3'.`, `${field}.input_audio.format`)
  return { type: 'audio', mediaType, data: requireString(audio.data, `${field}.input_audio.data`) }
}

/** User/assistant content: a string or an array of parts; a part type the API does not define is a 400. */
function decodeContent(value: unknown, field: string): ContentPart[] {
  if (value === undefined || value === null) return []
  if (typeof value === 'string') return value === '' ? [] : [{ type: 'text', text: value }]
  const parts: ContentPart[] = []
  for (const [index, item] of requireArray(value, field).entries()) {
    const part = requireObject(item, `${field}[${index}]`)
    const type = requireString(part.type, `${field}[${index}].type`)
    if (type === 'text') parts.push({ type: 'text', text: requireString(part.text, `${field}[${index}].text`) })
    else if (type === 'image_url') {
      const image = requireObject(part.image_url, `${field}[${index}].image_url`)
      const url = requireString(image.url, `${field}[${index}].image_url.url`)
      const inline = /^data:([^;,]+);base64,(.*)$/s.exec(url)
      parts.push(inline ? { type: 'image', mediaType: inline[1], data: inline[2] } : { type: 'image', url })
    } else if (type === 'refusal') parts.push({ type: 'text', text: requireString(part.refusal, `${field}[${index}].refusal`) })
    else if (type === 'file') parts.push(decodeFile(part, `${field}[${index}]`))
    else if (type === 'input_audio') parts.push(decodeAudio(part, `${field}[${index}]`))
    else
      throw invalidRequest(
        `Invalid value for '${field}[${index}].type': '${type}' is not one of text, image_url, input_audio, file, refusal.`,
        `${field}[${index}].type`,
      )
  }
  return parts
}

function decodeToolCalls(value: unknown, field: string, names: Map<string, string>): ContentPart[] {
  if (value === undefined || value === null) return []
  return requireArray(value, field).map((item, index) => {
    const call = requireObject(item, `${field}[${index}]`)
    const fn = requireObject(call.function, `${field}[${index}].function`)
    const id = requireString(call.id, `${field}[${index}].id`)
    const name = requireString(fn.name, `${field}[${index}].function.name`)
    names.set(id, name)
    return { type: 'tool-call', id, name, arguments: optionalString(fn.arguments, `${field}[${index}].function.arguments`) ?? '{}' }
  })
}

/** The messages into `system` (system and developer texts) and `messages`: the caller's arrays, no result object. */
function decodeMessages(value: unknown, system: string[], messages: Message[]): void {
  // Made only for a conversation with tool calls.
  let toolNames: Map<string, string> | undefined
  const list = readMessages(value, roles, rolesShown)
  for (let index = 0; index < list.length; index++) {
    const message = list[index]!
    const role = message.role
    // The usual message, a user's text: no field names spelled (they are for a 400's message).
    if (role === 'user' && typeof message.content === 'string') {
      messages.push({ role: 'user', content: message.content === '' ? [] : [{ type: 'text', text: message.content }] })
      continue
    }
    const field = `messages[${index}]`
    if (role === 'system' || role === 'developer') {
      const text = decodeContent(message.content, `${field}.content`)
        .map((part) => (part.type === 'text' ? part.text : ''))
        .join('')
      system.push(text)
    } else if (role === 'tool' || role === 'function') {
      const toolCallId =
        role === 'tool' ? requireString(message.tool_call_id, `${field}.tool_call_id`) : requireString(message.name, `${field}.name`)
      const content =
        typeof message.content === 'string'
          ? message.content
          : decodeContent(message.content, `${field}.content`)
              .map((part) => (part.type === 'text' ? part.text : ''))
              .join('')
      const result: ContentPart = {
        type: 'tool-result',
        toolCallId,
        name: toolNames?.get(toolCallId) ?? optionalString(message.name, `${field}.name`),
        content,
      }
      const previous = messages.at(-1)
      // Consecutive tool messages answer one assistant turn; keep them together as one IR message.
      if (previous?.role === 'tool') previous.content.push(result)
      else messages.push({ role: 'tool', content: [result] })
    } else if (role === 'assistant') {
      const content: ContentPart[] = []
      if (typeof message.reasoning_content === 'string' && message.reasoning_content)
        content.push({ type: 'reasoning', text: message.reasoning_content })
      content.push(...decodeContent(message.content, `${field}.content`))
      if (message.tool_calls != null) content.push(...decodeToolCalls(message.tool_calls, `${field}.tool_calls`, (toolNames ??= new Map())))
      messages.push({ role: 'assistant', content })
    } else {
      if (message.content === undefined || message.content === null)
        throw invalidRequest(`Missing required parameter: '${field}.content'.`, `${field}.content`)
      messages.push({ role: 'user', content: decodeContent(message.content, `${field}.content`) })
    }
  }
}

function decodeTools(value: unknown): ToolDefinition[] | undefined {
  if (value === undefined || value === null) return undefined
  return requireArray(value, 'tools').map((item, index) => {
    const tool = requireObject(item, `tools[${index}]`)
    if (tool.type !== 'function')
      throw invalidRequest(`Invalid value for 'tools[${index}].type': only 'function' tools are supported.`, `tools[${index}].type`)
    const fn = requireObject(tool.function, `tools[${index}].function`)
    return {
      name: requireString(fn.name, `tools[${index}].function.name`),
      description: optionalString(fn.description, `tools[${index}].function.description`),
      parameters: optionalSchema(fn.parameters, `tools[${index}].function.parameters`),
      strict: optionalBoolean(fn.strict, `tools[${index}].function.strict`),
    }
  })
}

function decodeToolChoice(value: unknown): ToolChoice | undefined {
  if (value === undefined || value === null) return undefined
  if (value === 'auto' || value === 'none' || value === 'required') return { type: value }
  if (isObject(value) && isObject(value.function) && typeof value.function.name === 'string')
    return { type: 'tool', name: value.function.name }
  throw invalidRequest(
    "Invalid value for 'tool_choice': expected 'none', 'auto', 'required' or {type:'function',function:{name}}.",
    'tool_choice',
  )
}

function decodeResponseFormat(value: unknown): ResponseFormat | undefined {
  if (value === undefined || value === null) return undefined
  const format = requireObject(value, 'response_format')
  if (format.type === 'json_object') return { type: 'json' }
  if (format.type === 'text') return { type: 'text' }
  if (format.type === 'json_schema') {
    const schema = requireObject(format.json_schema, 'response_format.json_schema')
    return {
      type: 'json-schema',
      name: optionalString(schema.name, 'response_format.json_schema.name'),
      schema: optionalSchema(schema.schema, 'response_format.json_schema.schema'),
      strict: optionalBoolean(schema.strict, 'response_format.json_schema.strict'),
    }
  }
  throw invalidRequest("Invalid value for 'response_format.type': expected 'text', 'json_object' or 'json_schema'.", 'response_format.type')
}

/** `logprobs: true` (with `top_logprobs` alternatives) → the IR's request for log probabilities. */
function decodeLogprobs(body: Json): ChatRequest['logprobs'] {
  const wanted = optionalBoolean(body.logprobs, 'logprobs')
  const top = optionalNumber(body.top_logprobs, 'top_logprobs', topLogprobsRange)
  if (top !== undefined && !wanted)
    throw invalidRequest("Invalid value for 'top_logprobs': it needs 'logprobs' set to true.", 'top_logprobs')
  return wanted ? { top: top ?? 0 } : undefined
}

/** A Chat Completions body → the IR, rejecting what the API itself would reject with a 400. */
export function decodeChatRequest(body: Json): ChatRequest {
  if (body.model === undefined) throw invalidRequest("Missing required parameter: 'model'.", 'model')
  if (body.messages === undefined) throw invalidRequest("Missing required parameter: 'messages'.", 'messages')
  const model = requireString(body.model, 'model')
  const system: string[] = []
  const messages: Message[] = []
  decodeMessages(body.messages, system, messages)
  const n = optionalNumber(body.n, 'n', positiveInteger)
  if (n !== undefined && n > 1) throw invalidRequest("Invalid value for 'n': this gateway returns one choice per request.", 'n')
  if (body.stream_options !== undefined && body.stream_options !== null) requireObject(body.stream_options, 'stream_options')
  const effort = optionalString(body.reasoning_effort, 'reasoning_effort')
  return {
    model,
    system,
    messages,
    stream: optionalBoolean(body.stream, 'stream') ?? false,
    maxOutputTokens:
      optionalNumber(body.max_completion_tokens, 'max_completion_tokens', positiveInteger) ??
      optionalNumber(body.max_tokens, 'max_tokens', positiveInteger),
    temperature: optionalNumber(body.temperature, 'temperature', temperatureRange),
    topP: optionalNumber(body.top_p, 'top_p', unitRange),
    stop: optionalStops(body.stop, 'stop'),
    tools: decodeTools(body.tools),
    toolChoice: decodeToolChoice(body.tool_choice),
    parallelToolCalls: optionalBoolean(body.parallel_tool_calls, 'parallel_tool_calls'),
    responseFormat: decodeResponseFormat(body.response_format),
    reasoning: effort ? { effort: effort as 'low' } : undefined,
    user: optionalString(body.user, 'user'),
    seed: optionalNumber(body.seed, 'seed', anyInteger),
    presencePenalty: optionalNumber(body.presence_penalty, 'presence_penalty', penaltyRange),
    frequencyPenalty: optionalNumber(body.frequency_penalty, 'frequency_penalty', penaltyRange),
    logprobs: decodeLogprobs(body),
    ...inspectChatBilling(body),
  }
}

// The ranges the numeric fields are checked against, made once rather than an object per field per request.
const positiveInteger = { min: 1, integer: true }
const temperatureRange = { min: 0, max: 2 }
const unitRange = { min: 0, max: 1 }
const anyInteger = { integer: true }
const penaltyRange = { min: -2, max: 2 }
const topLogprobsRange = { min: 0, max: 20, integer: true }
