import { GatewayError } from '../../../core/errors.ts'
import type { Attempt } from '../../../relay/attempt.ts'
import type { Meter } from '../../../relay/meter.ts'
import { PassthroughTap } from '../../../relay/passthrough-tap.ts'
import type { OpenedAttempt } from '../../../relay/types.ts'
import type { ChatRequest, StreamEvent } from '../core/ir.ts'
import type { Target } from '../../../core/provider.ts'
import { chatUpstreamOf } from '../core/upstream.ts'

/**
 * Send one chat attempt and read until nothing can go wrong unseen any more: a whole answer, or a stream whose answer
 * has begun (its first text, tool call or finish). Everything before that point is kept, not sent, so any failure up
 * to there — refused, cut, stalled, garbage, an error event — is thrown as a GatewayError and the request can still
 * be retried on another route without the client noticing. A client protocol the upstream speaks natively is
 * forwarded as bytes (passthrough); any other goes through the IR.
 */
export async function openChatAttempt(attempt: Attempt, request: ChatRequest): Promise<OpenedAttempt> {
  const { call, target, meter, upstream, traceparent } = attempt
  const { codec } = call
  const provider = chatUpstreamOf(attempt.provider)
  const passthrough = codec.forward && provider.passthrough?.protocol === call.protocol ? provider.passthrough : undefined
  if (passthrough) {
    // The forwarded body is capped to the target's output limit by the protocol's own `forward`.
    const answer = await passthrough.forward(codec.forward!(target), target, upstream, traceparent)
    if (!request.stream) {
      // Read at once when the body came with the head (the usual case): no await, no promise.
      const whole = answer.readWhole()
      const { body, answer: response } = whole instanceof Promise ? await whole : whole
      meter.observeAnswer(response)
      return { kind: 'raw', body }
    }
    const tap = new PassthroughTap(answer.readStream(), meter, codec, call.scope)
    await tap.prime()
    return { kind: 'raw-stream', tap }
  }
  const capped = withOutputCap(request, target)
  if (!capped.stream) {
    const response = await provider.complete(capped, target, upstream, traceparent)
    meter.observeAnswer(response)
    return { kind: 'answer', answer: response }
  }
  const events = (await provider.stream(capped, target, upstream, traceparent))[Symbol.asyncIterator]()
  return { kind: 'stream', head: await primeEvents(events, meter, target.provider.caps.bodyBytes), events }
}

/** The request as this target may serve it: never more output than the target's model allows. */
function withOutputCap(request: ChatRequest, target: Target): ChatRequest {
  const cap = target.model.maxOutputTokens
  return request.maxOutputTokens !== undefined && request.maxOutputTokens <= cap
    ? request
    : { ...request, maxOutputTokens: Math.min(request.maxOutputTokens ?? cap, cap) }
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
      if (held > maxHeldBytes)
        throw new GatewayError('upstream', `Upstream sent more than ${maxHeldBytes} bytes without beginning its answer`, {
          code: 'upstream_malformed',
        })
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
