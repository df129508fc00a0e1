import type { ChatRequest } from '../../core/ir.ts'
import type { Target } from '../../../../core/provider.ts'
import { refuseField } from '../../../../providers/refuse-field.ts'
import { encodeAnthropicMessages, type AnthropicBlock } from './encode-content.ts'
import { jsonAnswerTool } from './json-answer.ts'

/** Thinking budgets for an OpenAI-style effort, when the client named an effort rather than a budget. */
const budgetByEffort = { minimal: 0, low: 2048, medium: 8192, high: 24576 } as const
const minimumBudget = 1024

function thinkingBudget(request: ChatRequest, maxTokens: number): number | undefined {
  const reasoning = request.reasoning
  const wanted = reasoning?.budgetTokens ?? (reasoning?.effort ? budgetByEffort[reasoning.effort] : 0)
  // Anthropic wants 1024 ≤ budget < max_tokens; a budget that cannot fit means no thinking rather than a 400.
  const budget = Math.min(Math.max(wanted, minimumBudget), maxTokens - 1)
  return wanted > 0 && budget >= minimumBudget ? budget : undefined
}

function encodeToolChoice(request: ChatRequest): AnthropicBlock | undefined {
  const choice = request.toolChoice
  let encoded: AnthropicBlock | undefined
  if (choice?.type === 'tool') encoded = { type: 'tool', name: choice.name }
  else if (choice) encoded = { type: choice.type === 'required' ? 'any' : choice.type }
  if (request.parallelToolCalls === false && encoded?.type !== 'none')
    encoded = { ...(encoded ?? { type: 'auto' }), disable_parallel_tool_use: true }
  return encoded
}

/**
 * What Anthropic has no setting for. Log probabilities and penalties change what the client gets back, so they
 * are refused; `seed` and Gemini's safetySettings are ignored by design (docs/conformance.md says why).
 */
function refuseUnsupported(request: ChatRequest): void {
  if (request.logprobs) throw refuseField('logprobs', 'anthropic', 'gives no token log probabilities')
  if (request.presencePenalty) throw refuseField('presence_penalty', 'anthropic', 'has no presence penalty')
  if (request.frequencyPenalty) throw refuseField('frequency_penalty', 'anthropic', 'has no frequency penalty')
}

/**
 * Structured output. A JSON schema is Anthropic's own `output_config.format`: the answer comes back as JSON text.
 * Plain JSON mode has no native twin (Anthropic's format needs a closed schema), so it is emulated by one forced
 * tool whose input is any object; the provider's decoders turn that call back into the answer's text (json-answer.ts).
 */
function encodeResponseFormat(request: ChatRequest, body: Record<string, unknown>): void {
  const format = request.responseFormat
  if (format?.type === 'json-schema') body.output_config = { format: { type: 'json_schema', schema: format.schema } }
  if (format?.type !== 'json') return
  if (request.tools?.length)
    throw refuseField('response_format', 'anthropic', "cannot combine JSON mode with tools; use a JSON schema ('json_schema') instead")
  if (body.thinking)
    throw refuseField('response_format', 'anthropic', "cannot combine JSON mode with thinking; use a JSON schema ('json_schema') instead")
  body.tools = [jsonAnswerTool]
  body.tool_choice = { type: 'tool', name: jsonAnswerTool.name }
}

/** IR request → a Messages API body. `max_tokens` is required by Anthropic, so it is always set. */
export function encodeAnthropicRequest(request: ChatRequest, target: Target): { path: string; body: Record<string, unknown> } {
  refuseUnsupported(request)
  const maxTokens = request.maxOutputTokens ?? target.model.maxOutputTokens
  const system = [...request.system]
  const messages = encodeAnthropicMessages(request.messages, system)
  const body: Record<string, unknown> = { model: target.upstreamModel, max_tokens: maxTokens, messages }
  const systemBlocks = system.filter((text) => text !== '').map((text) => ({ type: 'text', text }))
  if (systemBlocks.length) body.system = systemBlocks
  if (request.stream) body.stream = true
  const budget = thinkingBudget(request, maxTokens)
  if (budget !== undefined) body.thinking = { type: 'enabled', budget_tokens: budget }
  // With thinking on, Anthropic refuses any temperature but 1 and any top_k.
  else {
    if (request.temperature !== undefined) body.temperature = Math.min(request.temperature, 1)
    if (request.topK !== undefined) body.top_k = request.topK
  }
  if (request.topP !== undefined) body.top_p = request.topP
  if (request.stop?.length) body.stop_sequences = request.stop
  if (request.user !== undefined) body.metadata = { user_id: request.user }
  if (request.tools?.length) {
    body.tools = request.tools.map((tool) => ({
      name: tool.name,
      ...(tool.description && { description: tool.description }),
      input_schema: { type: 'object', ...tool.parameters },
    }))
    const toolChoice = encodeToolChoice(request)
    if (toolChoice) body.tool_choice = toolChoice
  }
  encodeResponseFormat(request, body)
  return { path: '/v1/messages', body }
}
