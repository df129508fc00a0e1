// The floor for any proxy that reads a stream in JS: the trivial proxy (passthrough.ts), but with the upstream's body
// read chunk by chunk by a reader and each chunk written and flushed to a direct stream — what a gateway must do at
// the least to see the bytes it relays (Tollgate's passthrough-tap.ts adds the parsing, metering and holding back),
// where the trivial proxy hands Bun the upstream's body to pipe natively. bench/capacity.ts's chunks scenario runs it
// beside the other two, so the share of Tollgate's cost a JS read loop alone makes is measured in the same run.
import { forwardToUpstream, serveProxy } from './trivial-proxy.ts'

export const server = serveProxy(async (request) => {
  const response = await forwardToUpstream(request)
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
})
