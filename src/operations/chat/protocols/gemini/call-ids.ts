import type { CallIds } from '../../wire/gemini/parts.ts'
import { safeToolCallId } from '../../core/tool-calls.ts'

/**
 * Call ids for one Gemini conversation. A call without an id is numbered by its position in the history
 * (`call_0`, `call_1`…), so the same history always yields the same ids (upstream prompt caches stay warm).
 * A function response is paired with the call it answers: by id when both carry one, else the earliest unanswered
 * call of the same name, else simply the earliest unanswered call (Gemini itself pairs by order).
 */
export function createConversationCallIds(): CallIds {
  const unanswered: { id: string; name: string }[] = []
  let count = 0
  return {
    forCall(call) {
      const id = call.id ? safeToolCallId(call.id) : `call_${count}`
      count++
      unanswered.push({ id, name: call.name })
      return id
    },
    forResult(result) {
      let index = result.id ? unanswered.findIndex((call) => call.id === safeToolCallId(result.id!)) : -1
      if (index === -1) index = unanswered.findIndex((call) => call.name === result.name)
      if (index === -1 && unanswered.length > 0) index = 0
      if (index !== -1) return unanswered.splice(index, 1)[0]!.id
      return result.id ? safeToolCallId(result.id) : `call_${count++}`
    },
  }
}
