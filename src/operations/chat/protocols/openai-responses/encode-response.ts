import type { ChatResponse } from '../../core/ir.ts'
import { encodeOpenAiLogprobs } from '../../wire/openai/logprobs.ts'
import type { Json } from '../../../../protocols/shared/validate.ts'
import type { ResponsesContext } from './decode-request.ts'
import { functionCallItem, messageItem, newItemId, reasoningItem, responseObject, statusOf } from './encode-items.ts'

/**
 * IR response → a Response object. Output items follow the answer's order: reasoning, then text (adjacent text
 * parts make one message), then function calls, as the API lists them.
 */
export function encodeResponsesResponse(response: ChatResponse, context: ResponsesContext): Json {
  const output: Json[] = []
  let message: { content: Json[] } | undefined
  for (const part of response.content) {
    if (part.type === 'text') {
      if (message) (message.content[0] as { text: string }).text += part.text
      else output.push((message = messageItem(newItemId('msg'), 'completed', [part.text]) as { content: Json[] }))
      continue
    }
    message = undefined
    if (part.type === 'reasoning') output.push(reasoningItem(newItemId('rs'), part.text, part))
    else if (part.type === 'tool-call')
      output.push(functionCallItem(newItemId('fc'), 'completed', { ...part, arguments: part.arguments || '{}' }, context))
  }
  // Log probabilities belong to the answer's text: the first message's output_text carries them.
  const first = output.find((item) => item.type === 'message') as { content: Json[] } | undefined
  if (response.logprobs && first) first.content[0]!.logprobs = encodeOpenAiLogprobs(response.logprobs).content
  return responseObject({ id: newItemId('resp'), createdAt: response.created }, context, {
    ...statusOf(response.finishReason),
    output,
    usage: response.usage,
  })
}
