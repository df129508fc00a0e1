import { invalidRequest } from '../../../../core/errors.ts'
import type { ChatRequest, ToolChoice, ToolDefinition } from '../../core/ir.ts'
import {
  type Json,
  optionalBoolean,
  optionalNumber,
  optionalStops,
  optionalString,
  requireArray,
  requireObject,
  requireString,
} from '../../../../protocols/shared/validate.ts'
import { decodeMessages } from './decode-content.ts'
import { inspectMessagesBilling } from './billing-checks.ts'

function decodeSystem(value: unknown): string[] {
  if (value === undefined || value === null) return []
  if (typeof value === 'string') return value === '' ? [] : [value]
  return requireArray(value, 'system').map((item, index) => {
    const block = requireObject(item, `system[${index}]`)
    if (block.type !== 'text')
      throw invalidRequest(`Invalid value for 'system[${index}].type': only 'text' blocks are allowed.`, `system[${index}].type`)
    return requireString(block.text, `system[${index}].text`)
  })
}

/** Custom tools only: server tools (web search, code execution…) run at Anthropic and mean nothing elsewhere. */
function decodeTools(value: unknown): ToolDefinition[] | undefined {
  if (value === undefined || value === null) return undefined
  const tools: ToolDefinition[] = []
  for (const [index, item] of requireArray(value, 'tools').entries()) {
    const tool = requireObject(item, `tools[${index}]`)
    if (tool.type !== undefined && tool.type !== null && tool.type !== 'custom') continue
    tools.push({
      name: requireString(tool.name, `tools[${index}].name`),
      description: optionalString(tool.description, `tools[${index}].description`),
      parameters: requireObject(tool.input_schema, `tools[${index}].input_schema`),
    })
  }
  return tools
}

function decodeToolChoice(value: unknown): { toolChoice?: ToolChoice; parallelToolCalls?: boolean } {
  if (value === undefined || value === null) return {}
  const choice = requireObject(value, 'tool_choice')
  const type = requireString(choice.type, 'tool_choice.type')
  const parallelToolCalls =
    optionalBoolean(choice.disable_parallel_tool_use, 'tool_choice.disable_parallel_tool_use') === true ? false : undefined
  if (type === 'auto' || type === 'none') return { toolChoice: { type }, parallelToolCalls }
  if (type === 'any') return { toolChoice: { type: 'required' }, parallelToolCalls }
  if (type === 'tool') return { toolChoice: { type: 'tool', name: requireString(choice.name, 'tool_choice.name') }, parallelToolCalls }
  throw invalidRequest(`Invalid value for 'tool_choice.type': '${type}' is not one of auto, any, none, tool.`, 'tool_choice.type')
}

/**
 * `thinking` ({enabled, budget_tokens} | adaptive | disabled) → IR reasoning. `output_config.effort` is left out on
 * purpose: Claude Code sends it on every request, and passed on as OpenAI's `reasoning_effort` it would make
 * non-reasoning OpenAI models refuse the request.
 */
function decodeReasoning(thinking: unknown): ChatRequest['reasoning'] {
  if (thinking === undefined || thinking === null) return undefined
  const config = requireObject(thinking, 'thinking')
  const type = requireString(config.type, 'thinking.type')
  if (type === 'enabled')
    return { include: true, budgetTokens: optionalNumber(config.budget_tokens, 'thinking.budget_tokens', { min: 1, integer: true }) }
  if (type === 'adaptive') return { include: true }
  if (type !== 'disabled')
    throw invalidRequest(`Invalid value for 'thinking.type': '${type}' is not one of enabled, adaptive, disabled.`, 'thinking.type')
  return undefined
}

/**
 * `output_config.format` (Anthropic's structured output: `{type:'json_schema', schema}`) → the IR's response format.
 * `output_config.effort` is read by decodeReasoning's rule above: left out.
 */
function decodeOutputFormat(value: unknown): ChatRequest['responseFormat'] {
  if (value === undefined || value === null) return undefined
  const config = requireObject(value, 'output_config')
  if (config.format === undefined || config.format === null) return undefined
  const format = requireObject(config.format, 'output_config.format')
  if (format.type !== 'json_schema')
    throw invalidRequest("Invalid value for 'output_config.format.type': expected 'json_schema'.", 'output_config.format.type')
  return { type: 'json-schema', schema: requireObject(format.schema, 'output_config.format.schema'), strict: true }
}

/**
 * A Messages API body → the IR, rejecting with a 400 naming the field what the API itself would reject, under the
 * gateway's common rules (temperature 0–2, at most 4 stop sequences). count_tokens bodies have no `max_tokens`.
 */
export function decodeMessagesRequest(body: Json, options: { countOnly?: boolean } = {}): ChatRequest {
  if (body.model === undefined) throw invalidRequest("Missing required parameter: 'model'.", 'model')
  const model = requireString(body.model, 'model')
  if (body.max_tokens === undefined && !options.countOnly) throw invalidRequest("Missing required parameter: 'max_tokens'.", 'max_tokens')
  const maxOutputTokens = optionalNumber(body.max_tokens, 'max_tokens', { min: 1, integer: true })
  const { system, messages } = decodeMessages(body.messages)
  const metadata = body.metadata === undefined || body.metadata === null ? {} : requireObject(body.metadata, 'metadata')
  return {
    model,
    system: [...decodeSystem(body.system), ...system],
    messages,
    stream: options.countOnly ? false : (optionalBoolean(body.stream, 'stream') ?? false),
    maxOutputTokens,
    temperature: optionalNumber(body.temperature, 'temperature', { min: 0, max: 2 }),
    topP: optionalNumber(body.top_p, 'top_p', { min: 0, max: 1 }),
    topK: optionalNumber(body.top_k, 'top_k', { min: 0, integer: true }),
    stop: optionalStops(body.stop_sequences, 'stop_sequences', false),
    tools: decodeTools(body.tools),
    ...decodeToolChoice(body.tool_choice),
    reasoning: decodeReasoning(body.thinking),
    responseFormat: decodeOutputFormat(body.output_config),
    user: optionalString(metadata.user_id, 'metadata.user_id'),
    ...inspectMessagesBilling(body),
  }
}
