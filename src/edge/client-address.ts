import type { Server } from 'bun'
import { BlockList, isIP } from 'node:net'
import { parseAddressBlock } from '../core/address-block.ts'

/**
 * The client's address: the socket peer, unless the peer is one of the configured `trusted_proxies`, in which case
 * X-Forwarded-For is read from its right end, skipping hops that are themselves trusted proxies: the first address
 * that is not is the client the proxies saw. A header from any other peer is ignored — anyone can write one, and a
 * guesser rotating it would otherwise get a fresh sign-in allowance per request.
 *
 * Bun knows the peer only through the server object, which Elysia's `app.handle(request)` does not pass on, so the
 * caller passes the gateway's server. It is asked only when needed (console sign-in): `requestIP` on every API
 * request measured ~1.6% of the gateway's CPU, and remembering the server per request still cost a WeakMap write
 * (bench/, 2026-11-23).
 */
export function clientAddress(request: Request, server: Server<unknown> | undefined, trustedProxies: readonly string[] = []): string {
  const peer = normalize(server?.requestIP(request)?.address ?? 'unknown')
  if (trustedProxies.length === 0) return peer
  const trusted = compiled(trustedProxies)
  if (!isTrusted(trusted, peer)) return peer
  const hops = request.headers.get('x-forwarded-for')?.split(',') ?? []
  for (let index = hops.length - 1; index >= 0; index--) {
    const hop = normalize(hops[index]!.trim())
    if (!isIP(hop)) return peer // garbage in the header: fall back on what the socket proves
    if (!isTrusted(trusted, hop)) return hop
  }
  return peer
}

const lists = new WeakMap<readonly string[], BlockList>()

function compiled(entries: readonly string[]): BlockList {
  let list = lists.get(entries)
  if (!list) {
    list = new BlockList()
    for (const entry of entries) {
      const parsed = parseAddressBlock(entry)! // checked when the config was loaded
      list.addSubnet(parsed.address, parsed.prefix, parsed.family)
    }
    lists.set(entries, list)
  }
  return list
}

function isTrusted(list: BlockList, address: string): boolean {
  const version = isIP(address)
  return version !== 0 && list.check(address, version === 4 ? 'ipv4' : 'ipv6')
}

/** An IPv4 peer reached over an IPv6 socket shows as ::ffff:a.b.c.d: compare it as the IPv4 address it is. */
function normalize(address: string): string {
  return address.startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : address
}
