import type { Server } from 'bun'

/**
 * The peer address of each request. Bun knows it only through the server object, which Elysia's
 * `app.handle(request)` does not pass on; the gateway records the server here as requests arrive, keyed weakly by
 * the Request so nothing outlives the request. The address itself is asked for only when needed (console sign-in):
 * `requestIP` on every API request measured ~1.6% of the gateway's CPU (bench/, 2026-11-23).
 */
const servers = new WeakMap<Request, Server<unknown>>()

export function rememberClientAddress(request: Request, server: Server<unknown>): void {
  servers.set(request, server)
}

/**
 * The socket peer, plus the last X-Forwarded-For hop when there is one: behind a proxy that is the client the
 * proxy saw. Without a proxy a forged header can only spread one client over more buckets of its own (never
 * into another client's), which is why sign-in limits count per username as well.
 */
export function clientAddress(request: Request): string {
  const forwarded = request.headers.get('x-forwarded-for')?.split(',').at(-1)?.trim()
  const peer = servers.get(request)?.requestIP(request)?.address ?? 'unknown'
  return forwarded ? `${peer}>${forwarded}` : peer
}
