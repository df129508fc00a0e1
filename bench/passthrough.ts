// The baseline: the fastest trivial Bun proxy — no auth, no parsing, no billing — forwarding to the upstream.
// It still does what any proxy must: every request goes upstream with its method, path, headers and body, and the
// upstream's status, headers and body come back streamed. Measured choices (wrk -t2 -c50, loopback, 2026-11-24):
// the body read whole and sent as a string beats forwarding request.body as a stream (~20%); handing back the
// upstream's own Response beats copying it into a new one (~15%); the path is cut from request.url without a URL
// object. `decompress: false` passes a compressed answer through as the bytes and content-encoding it came with.
import { deepenListenBacklog } from '../src/edge/listen-backlog.ts'

const upstream = process.env.UPSTREAM_URL!
const server = Bun.serve({
  hostname: '127.0.0.1',
  port: 0,
  async fetch(request) {
    const url = request.url
    return fetch(upstream + url.slice(url.indexOf('/', 8)), {
      method: request.method,
      headers: request.headers,
      body: await request.text(),
      decompress: false,
    })
  },
})
// The same accept queue as Tollgate's (src/edge/listen-backlog.ts), so a burst of connections compares the proxies' work.
deepenListenBacklog(server.port!)
console.log(JSON.stringify({ url: `http://127.0.0.1:${server.port}` }))

export { server }
// A clean exit on SIGTERM, so that a profiled run (bench/profile.ts --proxy passthrough) writes its profile.
process.on('SIGTERM', () => process.exit(0))
// SIGUSR2: a full collection, so that bench/long-streams.ts reads resident memory with no garbage of the warm-up in it.
process.on('SIGUSR2', () => Bun.gc(true))
