import type { ChatResponse } from '../../core/ir.ts'
import { encodeOpenAiLogprobs } from '../../wire/openai/logprobs.ts'
import { encodeOpenAiUsage } from './encode-usage.ts'
import { encodeFinishReason } from './map-finish-reason.ts'

/** IR response → a `chat.completion` object. `model` is the gateway's id, the one the client asked for. */
export function encodeChatResponse(response: ChatResponse, model: string) {
  let text = ''
  let reasoning = ''
  const toolCalls = []
  for (const part of response.content) {
    if (part.type === 'text') text += part.text
    else if (part.type === 'reasoning') reasoning += part.text
    else if (part.type === 'tool-call') {
      toolCalls.push({ id: part.id, type: 'function', function: { name: part.name, arguments: part.arguments || '{}' } })
    }
  }
  const message: Record<string, unknown> = { role: 'assistant', content: text === '' && toolCalls.length ? null : text, refusal: null }
  if (reasoning) message.reasoning_content = reasoning
  if (toolCalls.length) message.tool_calls = toolCalls
  return {
    id: response.id.startsWith('chatcmpl-') ? response.id : `chatcmpl-${response.id}`,
    object: 'chat.completion',
    created: response.created,
    model,
    choices: [
      {
        index: 0,
        message,
        logprobs: response.logprobs ? encodeOpenAiLogprobs(response.logprobs) : null,
        finish_reason: encodeFinishReason(response.finishReason),
      },
    ],
    usage: response.usage ? encodeOpenAiUsage(response.usage) : undefined,
  }
}
