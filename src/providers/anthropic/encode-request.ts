import type { ChatRequest } from '../../core/ir.ts'
import type { Target } from '../../core/provider.ts'
import { encodeAnthropicMessages, type AnthropicBlock } from './encode-content.ts'

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
  if (request.parallelToolCalls === false && encoded?.type !== 'none') encoded = { ...(encoded ?? { type: 'auto' }), disable_parallel_tool_use: true }
  return encoded
}

/** IR request → a Messages API body. `max_tokens` is required by Anthropic, so it is always set. */
export function encodeAnthropicRequest(request: ChatRequest, target: Target): { path: string; body: Record<string, unknown> } {
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
  return { path: '/v1/messages', body }
}
