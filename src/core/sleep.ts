import { clientClosed, GatewayError } from './errors.ts'

/** Wait, unless the client leaves first (then reject at once: nobody is waiting for the answer any more). */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (ms <= 0 && !signal.aborted) return Promise.resolve()
  return new Promise((resolve, reject) => {
    const leave = () => {
      clearTimeout(timer)
      reject(signal.reason instanceof GatewayError ? signal.reason : clientClosed())
    }
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', leave)
      resolve()
    }, ms)
    if (signal.aborted) leave()
    else signal.addEventListener('abort', leave, { once: true })
  })
}
