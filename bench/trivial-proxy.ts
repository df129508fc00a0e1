// What the bench's two minimal proxies share (passthrough.ts, read-loop.ts): the call to the upstream, and the server
// around it. Measured choices (wrk -t2 -c50, loopback, 2026-11-24): the body read whole and sent as a string beats
// forwarding request.body as a stream (~20%); the path is cut from request.url without a URL object.
// `decompress: false` passes a compressed answer through as the bytes and content-encoding it came with.
import type { Server } from 'bun'
import { deepenListenBacklog } from '../src/edge/listen-backlog.ts'

const upstream = process.env.UPSTREAM_URL!

/** The request sent on to the upstream with its method, path, headers and body; the upstream's Response as it comes. */
export async function forwardToUpstream(request: Request): Promise<Response> {
  const url = request.url
  return fetch(upstream + url.slice(url.indexOf('/', 8)), {
    method: request.method,
    headers: request.headers,
    body: await request.text(),
    decompress: false,
  })
}

/**
 * `handle` served on loopback, its URL printed as the bench's servers print theirs (a JSON line), with Tollgate's
 * accept queue (src/edge/listen-backlog.ts) so that a burst of connections compares the proxies' work. `key`, printed
 * with the URL, is the bearer secret a proxy that checks one wants (bench/floor-proxy.ts).
 */
export function serveProxy(handle: (request: Request) => Promise<Response>, key?: string): Server<undefined> {
  const server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: handle })
  deepenListenBacklog(server.port!)
  console.log(JSON.stringify({ url: `http://127.0.0.1:${server.port}`, key }))
  // A clean exit on SIGTERM, so that a profiled run (bench/profile.ts --proxy) writes its profile.
  process.on('SIGTERM', () => process.exit(0))
  // SIGUSR2: a full collection, so that bench/long-streams.ts reads resident memory with no garbage of the warm-up in it.
  process.on('SIGUSR2', () => Bun.gc(true))
  return server
}
