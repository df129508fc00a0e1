import { toGatewayError } from '../core/errors.ts'
import { type AnswerEvent, type ErrorEvent, isErrorEvent } from '../core/operation.ts'
import type { Attempt } from './attempt.ts'
import type { Meter } from './meter.ts'
import { outcomeOf } from './outcome.ts'
import type { Outcome } from './types.ts'

/**
 * The rest of a begun stream, metered; the attempt ends once, however the stream ends (finished, failed, or the
 * client leaving — which aborts the upstream, so a read parked on it rejects and this generator unwinds at once;
 * unless the request reads on after its client left (abort-scope.ts), when the rest is read, unsent, for its usage
 * report). `head`: the events read while the attempt was opened, sent first.
 */
export async function* meterEvents(head: AnswerEvent[], events: AsyncIterator<AnswerEvent>, attempt: Attempt): AsyncGenerator<AnswerEvent> {
  const { meter } = attempt
  let outcome: Omit<Outcome, 'usage'> = { status: 499, errorType: 'client_closed' }
  try {
    yield* head
    while (true) {
      const next = await events.next()
      if (next.done) {
        meter.ended = true
        break
      }
      meter.observe(next.value)
      if (isErrorEvent(next.value)) {
        outcome = outcomeOf(next.value.error)
        yield next.value
        return
      }
      yield next.value
    }
    outcome = { status: 200 }
  } catch (error) {
    const failure = toGatewayError(error)
    if (failure.status !== 499) {
      outcome = outcomeOf(failure)
      const event: ErrorEvent = { type: 'error', error: failure }
      yield event
    }
  } finally {
    if (outcome.status === 499 && attempt.call.scope.readsOn) await readOn(events, meter)
    await attempt.end(outcome)
  }
}

/** The client left an answer that reads on: read the rest, unsent, so the bill is the upstream's own final report. */
export async function readOn(events: AsyncIterator<AnswerEvent>, meter: Meter): Promise<void> {
  try {
    while (true) {
      const next = await events.next()
      if (next.done) {
        meter.ended = true
        return
      }
      meter.observe(next.value)
      if (isErrorEvent(next.value)) return
    }
  } catch {
    // The upstream failed or one of its timers ended the attempt: the bill is what was seen.
  }
}
