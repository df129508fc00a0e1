/**
 * The signal a protocol hands the relay as "the client went away": it aborts when the request's own signal does
 * (Bun aborts it when the connection closes), or when `abort()` is called — a protocol calls it when the client
 * cancels a streamed answer. One controller and one listener per request: `AbortSignal.any` cost several times
 * more on the hot path (profile of bench/tollgate.ts, 2026-11-23).
 */
export function clientGoneController(request: Request): AbortController {
  const controller = new AbortController()
  const source = request.signal
  if (source.aborted) controller.abort(source.reason)
  else source.addEventListener('abort', () => controller.abort(source.reason), { once: true })
  return controller
}
