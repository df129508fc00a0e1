import { invalidRequest } from '../../../../core/errors.ts'
import type { ChatRequest, ContentPart, ResponseFormat } from '../../core/ir.ts'
import {
  isObject,
  type Json,
  optionalBoolean,
  optionalNumber,
  optionalSchema,
  optionalString,
  requireArray,
  requireObject,
  requireString,
} from '../../../../protocols/shared/validate.ts'
import { decodeInput } from './decode-input.ts'
import { decodeToolChoice, decodeTools, type NamespacedName } from './decode-tools.ts'
import { refuseStoredState } from './stateless.ts'

const byUrl = (part: ContentPart): boolean =>
  (part.type === 'image' || part.type === 'file') && part.url !== undefined && !part.url.startsWith('data:')

/** The first image or file given by URL (its size is not in the body): Responses has no passthrough, so the IR says it all. */
function findExternalImage(request: ChatRequest): string | undefined {
  for (const [index, message] of request.messages.entries()) {
    if (message.content.some((part) => byUrl(part) || (part.type === 'tool-result' && part.media?.some(byUrl)))) return `input[${index}]`
  }
  return undefined
}

/** What the Response object repeats of the request (the API echoes its settings), and how to name tool calls back. */
export interface ResponsesContext {
  echo: ResponseEcho
  namespaced: Map<string, NamespacedName>
}

/** The request's settings as the Response object repeats them (the gateway model id, never the upstream's). */
export interface ResponseEcho {
  instructions: string | null
  maxOutputTokens: number | null
  model: string
  parallelToolCalls: boolean
  reasoning: { effort: unknown; summary: unknown }
  temperature: number | null
  text: { format: unknown }
  toolChoice: unknown
  tools: unknown[]
  topP: number | null
  truncation: unknown
  user: unknown
  metadata: Json
}

const efforts = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh']
const summaries = ['auto', 'concise', 'detailed']

function decodeReasoning(value: unknown): ChatRequest['reasoning'] {
  if (value === undefined || value === null) return undefined
  const reasoning = requireObject(value, 'reasoning')
  const effort = optionalString(reasoning.effort, 'reasoning.effort')
  if (effort !== undefined && !efforts.includes(effort))
    throw invalidRequest(`Invalid value for 'reasoning.effort': expected one of ${efforts.join(', ')}.`, 'reasoning.effort')
  const summary =
    optionalString(reasoning.summary, 'reasoning.summary') ?? optionalString(reasoning.generate_summary, 'reasoning.generate_summary')
  if (summary !== undefined && !summaries.includes(summary))
    throw invalidRequest(`Invalid value for 'reasoning.summary': expected one of ${summaries.join(', ')}.`, 'reasoning.summary')
  if (effort === 'none') return undefined
  // The IR's scale stops at high; xhigh asks for the most the upstream offers.
  const mapped = effort === 'xhigh' ? 'high' : (effort as 'minimal' | 'low' | 'medium' | 'high' | undefined)
  if (!mapped && !summary) return undefined
  return { ...(mapped && { effort: mapped }), ...(summary && { include: true }) }
}

function decodeFormat(value: unknown): ResponseFormat | undefined {
  if (value === undefined || value === null) return undefined
  const text = requireObject(value, 'text')
  if (text.format === undefined || text.format === null) return undefined
  const format = requireObject(text.format, 'text.format')
  if (format.type === 'text') return { type: 'text' }
  if (format.type === 'json_object') return { type: 'json' }
  if (format.type === 'json_schema') {
    return {
      type: 'json-schema',
      name: requireString(format.name, 'text.format.name'),
      schema: optionalSchema(format.schema, 'text.format.schema'),
      strict: optionalBoolean(format.strict, 'text.format.strict'),
    }
  }
  throw invalidRequest("Invalid value for 'text.format.type': expected 'text', 'json_object' or 'json_schema'.", 'text.format.type')
}

/** Fields that are accepted and have nothing to do here; checked for type so a typo'd value is still a 400. */
function checkIgnored(body: Json): void {
  optionalBoolean(body.store, 'store')
  if (body.include != null) requireArray(body.include, 'include').forEach((item, index) => requireString(item, `include[${index}]`))
  if (body.metadata != null) requireObject(body.metadata, 'metadata')
  optionalString(body.prompt_cache_key, 'prompt_cache_key')
  const truncation = optionalString(body.truncation, 'truncation')
  if (truncation !== undefined && truncation !== 'auto' && truncation !== 'disabled')
    throw invalidRequest("Invalid value for 'truncation': expected 'auto' or 'disabled'.", 'truncation')
}

/** `top_logprobs`, or `include: ["message.output_text.logprobs"]`, asks for the answer's log probabilities. */
function decodeLogprobs(body: Json): ChatRequest['logprobs'] {
  const top = optionalNumber(body.top_logprobs, 'top_logprobs', { min: 0, max: 20, integer: true })
  const included = Array.isArray(body.include) && body.include.includes('message.output_text.logprobs')
  return top !== undefined || included ? { top: top ?? 0 } : undefined
}

/** A Responses body → the IR plus what the answer must repeat; anything that needs stored state is a 400. */
export function decodeResponsesRequest(body: Json): { request: ChatRequest; context: ResponsesContext } {
  if (body.model === undefined) throw invalidRequest("Missing required parameter: 'model'.", 'model')
  const model = requireString(body.model, 'model')
  refuseStoredState(body)
  if (body.input === undefined || body.input === null) throw invalidRequest("Missing required parameter: 'input'.", 'input')
  checkIgnored(body)
  const instructions = optionalString(body.instructions, 'instructions')
  const { system, messages } = decodeInput(body.input)
  const declared = decodeTools(body.tools)
  const { toolChoice, tools } = decodeToolChoice(body.tool_choice, declared)
  const request: ChatRequest = {
    model,
    system: instructions ? [instructions, ...system] : system,
    messages,
    stream: optionalBoolean(body.stream, 'stream') ?? false,
    maxOutputTokens: optionalNumber(body.max_output_tokens, 'max_output_tokens', { min: 1, integer: true }),
    temperature: optionalNumber(body.temperature, 'temperature', { min: 0, max: 2 }),
    topP: optionalNumber(body.top_p, 'top_p', { min: 0, max: 1 }),
    tools,
    toolChoice,
    parallelToolCalls: optionalBoolean(body.parallel_tool_calls, 'parallel_tool_calls'),
    responseFormat: decodeFormat(body.text),
    reasoning: decodeReasoning(body.reasoning),
    user: optionalString(body.safety_identifier, 'safety_identifier') ?? optionalString(body.user, 'user'),
    logprobs: decodeLogprobs(body),
  }
  const reasoning = isObject(body.reasoning) ? body.reasoning : {}
  const echo: ResponseEcho = {
    instructions: instructions ?? null,
    maxOutputTokens: request.maxOutputTokens ?? null,
    model,
    parallelToolCalls: request.parallelToolCalls ?? true,
    reasoning: { effort: reasoning.effort ?? null, summary: reasoning.summary ?? null },
    temperature: request.temperature ?? null,
    text: { format: isObject(body.text) && isObject(body.text.format) ? body.text.format : { type: 'text' } },
    toolChoice: body.tool_choice ?? 'auto',
    tools: Array.isArray(body.tools) ? body.tools : [],
    topP: request.topP ?? null,
    truncation: body.truncation ?? 'disabled',
    user: body.user ?? null,
    metadata: isObject(body.metadata) ? body.metadata : {},
  }
  const externalContent = findExternalImage(request)
  if (externalContent) request.externalContent = externalContent
  return { request, context: { echo, namespaced: declared.namespaced } }
}
