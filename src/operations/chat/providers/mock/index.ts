import type { ProviderConfig } from '../../../../config/types.ts'
import { sleep } from '../../../../core/sleep.ts'
import type { ChatResponse, ContentPart, StreamEvent } from '../../core/ir.ts'
import { randomBase62 } from '../../../../core/ids.ts'
import type { ChatUpstream } from '../../core/upstream.ts'
import { planMockAnswer } from './answer.ts'

/**
 * The built-in provider's chat: answers in-process, deterministically, with no account anywhere. It greets and echoes
 * the start of the last message and reports usage, so every path of the gateway (streaming, tools, billing) can be
 * tried on a fresh machine. It calls a tool (arguments made from its schema) only when asked, as a polite model
 * would: when the last user message names an offered tool or says "use", "call" or "tool", or when tool_choice is
 * `required` or names a tool (see pick-tool.ts). So a CLI that offers tools on every turn (`claude -p "say hi"`)
 * simply gets an answer, and "use the get_weather tool" gets a call.
 */
export function createMockChatUpstream(config: ProviderConfig): ChatUpstream {
  return {
    async complete(request, target): Promise<ChatResponse> {
      const answer = planMockAnswer(request)
      const content: ContentPart[] = []
      if (answer.reasoning) content.push({ type: 'reasoning', text: answer.reasoning, signature: 'mock-signature' })
      if (answer.pieces.length) content.push({ type: 'text', text: answer.pieces.join('') })
      if (answer.toolCall) content.push({ type: 'tool-call', ...answer.toolCall })
      return {
        id: `mock-${randomBase62(12)}`,
        model: target.upstreamModel,
        created: Math.floor(Date.now() / 1000),
        content,
        finishReason: answer.finishReason,
        usage: answer.usage,
      }
    },
    async stream(request, target, attempt) {
      const answer = planMockAnswer(request)
      const delay = config.chunkDelayMs
      async function* events(): AsyncGenerator<StreamEvent> {
        yield { type: 'start', id: `mock-${randomBase62(12)}`, model: target.upstreamModel, created: Math.floor(Date.now() / 1000) }
        let index = 0
        if (answer.reasoning) {
          yield { type: 'reasoning-start', index }
          yield { type: 'reasoning-delta', index, text: answer.reasoning }
          yield { type: 'reasoning-signature', index, signature: 'mock-signature' }
          yield { type: 'reasoning-end', index: index++ }
        }
        if (answer.pieces.length) {
          yield { type: 'text-start', index }
          for (const piece of answer.pieces) {
            await sleep(delay, attempt.signal)
            yield { type: 'text-delta', index, text: piece }
          }
          yield { type: 'text-end', index: index++ }
        }
        if (answer.toolCall) {
          const call = answer.toolCall
          yield { type: 'tool-call-start', index, id: call.id, name: call.name }
          // Split the arguments as real upstreams do, so clients reassemble fragments.
          const middle = Math.ceil(call.arguments.length / 2)
          for (const part of [call.arguments.slice(0, middle), call.arguments.slice(middle)]) {
            await sleep(delay, attempt.signal)
            if (part) yield { type: 'tool-call-delta', index, arguments: part }
          }
          yield { type: 'tool-call-end', index: index++ }
        }
        yield { type: 'finish', reason: answer.finishReason }
        yield { type: 'usage', usage: answer.usage }
      }
      return events()
    },
  }
}
