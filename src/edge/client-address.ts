import type { Server } from 'bun'

/**
 * The socket peer, plus the last X-Forwarded-For hop when there is one: behind a proxy that is the client the
 * proxy saw. Without a proxy a forged header can only spread one client over more buckets of its own (never
 * into another client's), which is why sign-in limits count per username as well.
 *
 * Bun knows the peer only through the server object, which Elysia's `app.handle(request)` does not pass on, so the
 * caller passes the gateway's server. It is asked only when needed (console sign-in): `requestIP` on every API
 * request measured ~1.6% of the gateway's CPU, and remembering the server per request still cost a WeakMap write
 * (bench/, 2026-11-23).
 */
export function clientAddress(request: Request, server: Server<unknown> | undefined): string {
  const forwarded = request.headers.get('x-forwarded-for')?.split(',').at(-1)?.trim()
  const peer = server?.requestIP(request)?.address ?? 'unknown'
  return forwarded ? `${peer}>${forwarded}` : peer
}
