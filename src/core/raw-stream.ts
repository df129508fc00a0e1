import type { Provider } from '../providers/types.ts'
import { readWithIdleTimeout } from '../providers/http.ts'
import { toGatewayError } from './errors.ts'
import type { Meter } from './meter.ts'
import { formatSse, SseParser, type SseEvent } from './sse.ts'
import type { Outcome, RelayCall } from './relay.ts'

const encoder = new TextEncoder()

/**
 * The passthrough stream: upstream bytes go to the client as they arrive, while a parser on the side feeds the
 * provider's own stream decoder so the meter sees the same IR events as on the translated path.
 * When `drop` is given, events are re-framed one by one so that the dropped ones can be left out.
 */
export function meterRawStream(
  body: ReadableStream<Uint8Array>, provider: Provider, meter: Meter, upstream: AbortController,
  call: Pick<RelayCall, 'dropRawEvent' | 'encodeRawError'>, settle: (outcome: Omit<Outcome, 'usage'>) => Promise<void>,
): ReadableStream<Uint8Array> {
  const parser = new SseParser()
  const decoder = provider.createStreamDecoder!()
  const chunks = readWithIdleTimeout(body, provider.config, upstream.signal)
  const drop = call.dropRawEvent
  let settled = false
  let failed: { status: number; errorType: string } | undefined

  const observe = (events: SseEvent[], controller: ReadableStreamDefaultController<Uint8Array>) => {
    for (const event of events) {
      for (const ir of decoder.decode(event)) {
        meter.observe(ir)
        if (ir.type === 'error') failed = { status: ir.error.status, errorType: ir.error.code ?? ir.error.kind }
      }
      if (drop && !drop(event)) controller.enqueue(encoder.encode(formatSse(event.data, event.event)))
    }
  }
  const end = async (outcome: Omit<Outcome, 'usage'>) => {
    if (settled) return
    settled = true
    upstream.abort()
    await settle(outcome)
  }

  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const next = await chunks.next()
        if (next.done) {
          observe(parser.finish(), controller)
          for (const ir of decoder.finish()) {
            meter.observe(ir)
            if (ir.type !== 'error') continue
            // The body ended before the protocol's own end (a dropped connection): the upstream sent no error event,
            // so the client gets ours rather than a silent cut.
            if (!failed && call.encodeRawError) controller.enqueue(encoder.encode(call.encodeRawError(ir.error)))
            failed ??= { status: ir.error.status, errorType: ir.error.code ?? ir.error.kind }
          }
          controller.close()
          await end(failed ?? { status: 200 })
          return
        }
        if (!drop) controller.enqueue(next.value)
        observe(parser.push(next.value), controller)
      } catch (error) {
        const failure = toGatewayError(error)
        // A mid-stream failure ends with the protocol's own error event, never a silent cut.
        if (call.encodeRawError) {
          controller.enqueue(encoder.encode(call.encodeRawError(failure)))
          controller.close()
        } else controller.error(failure)
        await end({ status: failure.status, errorType: failure.code ?? failure.kind })
      }
    },
    async cancel() {
      await chunks.return(undefined)
      await end({ status: 499, errorType: 'client_closed' })
    },
  })
}
