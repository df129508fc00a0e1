// The floor for any proxy that reads a stream in JS: the trivial proxy (passthrough.ts), but with the upstream's body
// read chunk by chunk by a reader and each chunk written and flushed to a direct stream — what a gateway must do at
// the least to see the bytes it relays (Tollgate's passthrough-tap.ts adds the parsing, metering and holding back),
// where the trivial proxy hands Bun the upstream's body to pipe natively. bench/capacity.ts's chunks scenario runs it
// beside the other two, so the share of Tollgate's cost a JS read loop alone makes is measured in the same run.
import { deepenListenBacklog } from '../src/edge/listen-backlog.ts'

const upstream = process.env.UPSTREAM_URL!
const server = Bun.serve({
  hostname: '127.0.0.1',
  port: 0,
  async fetch(request) {
    const url = request.url
    const response = await fetch(upstream + url.slice(url.indexOf('/', 8)), {
      method: request.method,
      headers: request.headers,
      body: await request.text(),
      decompress: false,
    })
    if (!response.body) return response
    const reader = response.body.getReader()
    const source = {
      type: 'direct',
      async pull(controller: ReadableStreamDirectController) {
        for (let next = await reader.read(); !next.done; next = await reader.read()) {
          controller.write(next.value)
          controller.flush()
        }
        controller.close()
      },
    }
    return new Response(new ReadableStream(source as unknown as UnderlyingDefaultSource<Uint8Array>), {
      status: response.status,
      headers: response.headers,
    })
  },
})
// The same accept queue as Tollgate's (src/edge/listen-backlog.ts), so a burst of connections compares the proxies' work.
deepenListenBacklog(server.port!)
console.log(JSON.stringify({ url: `http://127.0.0.1:${server.port}` }))
// A clean exit on SIGTERM, so that a profiled run writes its profile.
process.on('SIGTERM', () => process.exit(0))
export { server }
// SIGUSR2: a full collection, so that bench/long-streams.ts reads resident memory with no garbage of the warm-up in it.
process.on('SIGUSR2', () => Bun.gc(true))
