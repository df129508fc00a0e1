// The trivial proxy (passthrough.ts) with its upstream call made on plain sockets instead of `fetch`: Tollgate's own
// HTTP/1.1 client (src/providers/http1-client.ts, connections kept alive in a pool, each answer parsed as its bytes
// arrive) — a whole answer relayed as one body, a stream piped chunk by chunk to a direct stream in the socket's own
// callback (Http1Answer.pipe). It measures what the client saves against `fetch`, which runs every request on Bun's HTTP
// client thread (a hand-over and a wake-up each way) and hands a streamed body to JS through a ReadableStream.
import { sendNow } from '../src/core/direct-stream.ts'
import { Http1Client, type Http1Answer } from '../src/providers/http1-client.ts'
import { serveProxy } from './trivial-proxy.ts'

const client = new Http1Client(new URL(process.env.UPSTREAM_URL!))
/** What the client itself sets, or this relay frames anew. */
const framing = new Set(['connection', 'content-length', 'transfer-encoding', 'keep-alive'])

function relayed(answer: Http1Answer): Headers {
  const headers = new Headers()
  for (const [name, value] of answer.headers) if (!framing.has(name)) headers.append(name, value)
  return headers
}

/** A streamed answer piped to the client's direct stream: each piece written on in the socket's callback. */
function streamOf(answer: Http1Answer): ReadableStream<Uint8Array> {
  const source = {
    type: 'direct',
    pull(controller: ReadableStreamDirectController) {
      return new Promise<void>((resolve) =>
        answer.pipe({
          chunk: (bytes) => sendNow(controller, bytes),
          end() {
            controller.close()
            resolve()
          },
          fail(error) {
            controller.close(error as Error)
            resolve()
          },
        }),
      )
    },
    cancel: () => answer.cancel(),
  }
  return new ReadableStream(source as unknown as UnderlyingDefaultSource<Uint8Array>)
}

export const server = serveProxy(async (request) => {
  const url = request.url
  const answer = await client.request({
    method: request.method,
    path: url.slice(url.indexOf('/', 8)),
    headers: { 'content-type': 'application/json', authorization: request.headers.get('authorization') ?? '' },
    body: await request.text(),
  })
  const headers = relayed(answer)
  if (headers.get('content-type')?.startsWith('text/event-stream'))
    return new Response(streamOf(answer), { status: answer.status, headers })
  return new Response(await answer.text(), { status: answer.status, headers })
})
