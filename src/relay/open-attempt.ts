import type { Provider, Target } from '../core/provider.ts'
import { GatewayError, toGatewayError } from '../core/errors.ts'
import type { ChatRequest, ChatResponse, StreamEvent } from '../operations/chat/core/ir.ts'
import type { AbortScope } from './abort-scope.ts'
import type { Meter } from './meter.ts'
import { outcomeOf } from './outcome.ts'
import { PassthroughTap } from './passthrough-tap.ts'
import type { Outcome, RelayCall } from './types.ts'

/** An attempt that got far enough to answer the client: whole (non-streamed) or begun (streamed). */
export type OpenedAttempt =
  | { kind: 'response'; response: ChatResponse }
  | { kind: 'raw'; body: string }
  | { kind: 'stream'; head: StreamEvent[]; events: AsyncIterator<StreamEvent> }
  | { kind: 'raw-stream'; tap: PassthroughTap }

/**
 * Send one attempt and read until nothing can go wrong unseen any more: a whole answer, or a stream whose answer has
 * begun (its first text, tool call or finish). Everything before that point is kept, not sent, so any failure up
 * to there — refused, cut, stalled, garbage, an error event — is thrown as a GatewayError and the request can still
 * be retried on another route without the client noticing.
 */
export async function openAttempt(
  provider: Provider, target: Target, call: RelayCall, meter: Meter, attempt: AbortController, traceparent: string | null | undefined,
): Promise<OpenedAttempt> {
  const { codec } = call
  const passthrough = codec.forward && provider.passthrough?.protocol === call.protocol ? provider.passthrough : undefined
  if (passthrough) {
    // The forwarded body is capped to the target's output limit by the protocol's own `forward`.
    const answer = await passthrough.forward(codec.forward!(target), target, attempt, traceparent)
    if (!call.request.stream) {
      const { body, response } = await answer.readWhole()
      meter.observeResponse(response)
      return { kind: 'raw', body }
    }
    const tap = new PassthroughTap(answer.readStream(), meter, codec, call.scope)
    await tap.prime()
    return { kind: 'raw-stream', tap }
  }
  const request = withOutputCap(call.request, target)
  if (!request.stream) {
    const response = await provider.complete(request, target, attempt, traceparent)
    meter.observeResponse(response)
    return { kind: 'response', response }
  }
  const events = (await provider.stream(request, target, attempt, traceparent))[Symbol.asyncIterator]()
  return { kind: 'stream', head: await primeEvents(events, meter, target.provider.caps.bodyBytes), events }
}

/** The request as this target may serve it: never more output than the target's model allows. */
function withOutputCap(request: ChatRequest, target: Target): ChatRequest {
  const cap = target.model.maxOutputTokens
  return request.maxOutputTokens !== undefined && request.maxOutputTokens <= cap ? request : { ...request, maxOutputTokens: Math.min(request.maxOutputTokens ?? cap, cap) }
}

/**
 * Read and keep events until the answer begins. An upstream that sends and sends without beginning its answer (usage
 * reports, logprobs, redacted reasoning…) is not held without end: what the kept events carry is counted against
 * `maxHeldBytes` (limits.upstream_body_bytes, as on the passthrough path), and past it the attempt fails — before
 * the answer began, so like any such failure it may be retried.
 */
async function primeEvents(events: AsyncIterator<StreamEvent>, meter: Meter, maxHeldBytes: number): Promise<StreamEvent[]> {
  const head: StreamEvent[] = []
  let held = 0
  try {
    while (!meter.begun) {
      const next = await events.next()
      if (next.done) break
      if (next.value.type === 'error') throw next.value.error
      meter.observe(next.value)
      head.push(next.value)
      held += heldSize(next.value)
      if (held > maxHeldBytes) throw new GatewayError('upstream', `Upstream sent more than ${maxHeldBytes} bytes without beginning its answer`, { code: 'upstream_malformed' })
    }
    return head
  } catch (error) {
    void events.return?.(undefined)
    throw error
  }
}

/** What keeping one event costs, roughly: the text it carries, and a fixed amount for the object itself. */
function heldSize(event: StreamEvent): number {
  const object = 64
  switch (event.type) {
    case 'text-delta':
    case 'reasoning-delta':
      return object + event.text.length
    case 'reasoning-start':
      return object + (event.redacted?.length ?? 0)
    case 'reasoning-signature':
      return object + event.signature.length
    case 'tool-call-start':
      return object + event.id.length + event.name.length
    case 'tool-call-delta':
      return object + event.arguments.length
    case 'start':
      return object + event.id.length + event.model.length
    case 'logprobs': {
      let size = object
      for (const entry of event.logprobs) size += object + entry.token.length + (entry.top?.length ?? 0) * object
      return size
    }
    default:
      return object
  }
}

/**
 * The rest of a begun stream, metered; `end` runs once, however the stream ends (finished, failed, or the client
 * leaving — which aborts the upstream, so a read parked on it rejects and this generator unwinds at once; unless
 * the request reads on after its client left (abort-scope.ts), when the rest is read, unsent, for its usage report).
 */
export async function* meterEvents(
  head: StreamEvent[], events: AsyncIterator<StreamEvent>, meter: Meter, scope: AbortScope,
  end: (outcome: Omit<Outcome, 'usage'>) => Promise<void>,
): AsyncGenerator<StreamEvent> {
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
      if (next.value.type === 'error') {
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
      yield { type: 'error', error: failure }
    }
  } finally {
    if (outcome.status === 499 && scope.readsOn) await readOn(events, meter)
    await end(outcome)
  }
}

/** The client left a reasoning answer: read the rest, unsent, so the bill is the upstream's own final report. */
export async function readOn(events: AsyncIterator<StreamEvent>, meter: Meter): Promise<void> {
  try {
    while (true) {
      const next = await events.next()
      if (next.done) {
        meter.ended = true
        return
      }
      meter.observe(next.value)
      if (next.value.type === 'error') return
    }
  } catch {
    // The upstream failed or one of its timers ended the attempt: the bill is what was seen.
  }
}
