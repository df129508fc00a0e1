// The trivial proxy (passthrough.ts) with its upstream call made on plain sockets instead of `fetch`: HTTP/1.1 over
// `Bun.connect` connections kept alive in a pool, each answer read by src/core/http1-response.ts as its bytes arrive
// and written on at once — a whole answer as one body, a stream to a direct stream chunk by chunk. It measures what
// an upstream client of Tollgate's own would save: fetch runs every request on Bun's HTTP client thread (a wake-up and
// a hand-over each way) and hands a streamed body to JS through a ReadableStream and a promise a read, while here the
// bytes reach JS in the socket's own callback on the main thread.
//
// A bench, not a client: no TLS, no timeouts, no back-pressure (the bench's clients read as fast as they can), no
// limit on connections, and an upstream that closes a kept-alive connection under a request fails that request.
import type { Socket } from 'bun'
import { Http1ResponseParser, type ResponseSink } from '../src/core/http1-response.ts'
import { serveProxy } from './trivial-proxy.ts'

const upstream = new URL(process.env.UPSTREAM_URL!)
const idle: Connection[] = []

/** One kept-alive upstream connection, and the answer it is reading. */
class Connection implements ResponseSink {
  readonly parser = new Http1ResponseParser(this)
  socket!: Socket<Connection>
  private answered: ((response: Response) => void) | undefined
  private failed: ((error: Error) => void) | undefined
  private status = 0
  private headers: [string, string][] = []
  /** A whole answer's pieces, or a stream's until the client's stream is pulled. */
  private parts: Uint8Array[] = []
  private streamed = false
  private controller: ReadableStreamDirectController | undefined
  private ended = false

  /** Send a request; resolves with its answer once the head has come (a whole answer: once all of it has). */
  send(request: string): Promise<Response> {
    this.parts = []
    this.controller = undefined
    this.ended = false
    this.parser.expect()
    const answer = new Promise<Response>((resolve, reject) => {
      this.answered = resolve
      this.failed = reject
    })
    this.socket.write(request)
    return answer
  }

  head(status: number, headers: [string, string][]): void {
    this.status = status
    this.headers = headers.filter(([name]) => name !== 'transfer-encoding' && name !== 'connection' && name !== 'content-length')
    this.streamed = headers.some(([name, value]) => name === 'content-type' && value.startsWith('text/event-stream'))
    if (this.streamed) this.answered!(new Response(directStream(this), { status, headers: this.headers }))
  }

  body(bytes: Uint8Array): void {
    if (this.controller) {
      this.controller.write(bytes)
      this.controller.flush()
    } else this.parts.push(bytes.slice())
  }

  end(reusable: boolean): void {
    this.ended = true
    if (!this.streamed) {
      const body = this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts)
      this.answered!(new Response(body, { status: this.status, headers: this.headers }))
    } else this.controller?.close()
    if (reusable) idle.push(this)
    else this.socket.end()
  }

  /** The client's stream is pulled: what came before goes first, then every chunk as it comes. */
  pull(controller: ReadableStreamDirectController): Promise<void> | undefined {
    for (const part of this.parts) controller.write(part)
    this.parts = []
    if (this.ended) {
      controller.close()
      return undefined
    }
    controller.flush()
    this.controller = controller
    return new Promise<void>(() => {}) // end() closes it
  }

  closed(error?: Error): void {
    const at = idle.indexOf(this)
    if (at !== -1) idle.splice(at, 1)
    try {
      this.parser.close()
    } catch (malformed) {
      this.failed?.(error ?? (malformed as Error))
      this.controller?.close()
    }
  }
}

function directStream(connection: Connection): ReadableStream<Uint8Array> {
  const source = { type: 'direct', pull: (controller: ReadableStreamDirectController) => connection.pull(controller) }
  return new ReadableStream(source as unknown as UnderlyingDefaultSource<Uint8Array>)
}

async function connect(): Promise<Connection> {
  const connection = new Connection()
  connection.socket = await Bun.connect<Connection>({
    hostname: upstream.hostname,
    port: Number(upstream.port),
    data: connection,
    socket: {
      data: (socket, data) => socket.data.parser.push(data),
      close: (socket) => socket.data.closed(),
      error: (socket, error) => socket.data.closed(error),
    },
  })
  return connection
}

export const server = serveProxy(async (request) => {
  const url = request.url
  const body = await request.text()
  const connection = idle.pop() ?? (await connect())
  return connection.send(
    `POST ${url.slice(url.indexOf('/', 8))} HTTP/1.1\r\nhost: ${upstream.host}\r\ncontent-type: application/json\r\n` +
      `authorization: ${request.headers.get('authorization') ?? ''}\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  )
})
