/**
 * The peer address of each request. Bun knows it only through the server object, which Elysia's
 * `app.handle(request)` does not pass on; the gateway records it here as requests arrive, keyed weakly by
 * the Request so nothing outlives the request.
 */
const addresses = new WeakMap<Request, string>()

export function rememberClientAddress(request: Request, address: string | undefined): void {
  if (address !== undefined) addresses.set(request, address)
}

/**
 * The socket peer, plus the last X-Forwarded-For hop when there is one: behind a proxy that is the client the
 * proxy saw. Without a proxy a forged header can only spread one client over more buckets of its own (never
 * into another client's), which is why sign-in limits count per username as well.
 */
export function clientAddress(request: Request): string {
  const forwarded = request.headers.get('x-forwarded-for')?.split(',').at(-1)?.trim()
  const peer = addresses.get(request) ?? 'unknown'
  return forwarded ? `${peer}>${forwarded}` : peer
}
