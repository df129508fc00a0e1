import { GatewayError } from '../../../../core/errors.ts'
import type { ChatResponse, ContentPart } from '../../core/ir.ts'
import { decodeOpenAiLogprobs } from '../../wire/openai/logprobs.ts'
import { decodeOpenAiUsage } from './decode-usage.ts'
import { mapOpenAiFinishReason } from './map-finish-reason.ts'

interface OpenAiMessage {
  content?: string | null
  refusal?: string | null
  /** Not OpenAI's own, but DeepSeek, vLLM and others put thinking here. */
  reasoning_content?: string | null
  tool_calls?: { id: string; function: { name: string; arguments: string } }[] | null
}

interface OpenAiCompletion {
  id?: string
  created?: number
  model?: string
  choices?: { message?: OpenAiMessage; finish_reason?: string | null; logprobs?: unknown }[]
  usage?: Parameters<typeof decodeOpenAiUsage>[0] | null
}

export function decodeOpenAiResponse(body: unknown): ChatResponse {
  const completion = body as OpenAiCompletion
  const choice = completion?.choices?.[0]
  if (!choice || typeof choice !== 'object') throw new GatewayError('upstream', 'Upstream response has no choices')
  const message = choice.message ?? {}
  const content: ContentPart[] = []
  if (message.reasoning_content) content.push({ type: 'reasoning', text: message.reasoning_content })
  if (message.content) content.push({ type: 'text', text: message.content })
  if (message.refusal) content.push({ type: 'text', text: message.refusal })
  for (const call of message.tool_calls ?? []) {
    content.push({ type: 'tool-call', id: call.id, name: call.function.name, arguments: call.function.arguments ?? '' })
  }
  const logprobs = decodeOpenAiLogprobs(choice.logprobs)
  return {
    id: completion.id ?? '',
    model: completion.model ?? '',
    created: completion.created ?? Math.floor(Date.now() / 1000),
    content,
    finishReason: message.refusal ? 'refusal' : mapOpenAiFinishReason(choice.finish_reason),
    usage: completion.usage ? decodeOpenAiUsage(completion.usage) : undefined,
    ...(logprobs && { logprobs }),
  }
}
