import { afterAll, expect, test } from 'bun:test'
import { defaultHttp1ClientOptions, Http1Client, RequestBodyFailed, type StreamedBody } from './http1-client.ts'

/**
 * A streamed request body (an upload read from disk, file-form.ts) over the own client: written after the head as it
 * is read, no faster than the upstream takes it, whole; an upstream that answers before reading it all stops the
 * upload and the connection is not reused; a body that fails to read fails the request and frees the connection.
 */
const opened: Http1Client[] = []
const clientOf = (port: number) => {
  const client = new Http1Client(new URL(`http://127.0.0.1:${port}`), defaultHttp1ClientOptions)
  opened.push(client)
  return client
}

/**
 * `count` pieces of `size` bytes, each byte its piece's number, pulled one at a time (each `delayMs` after the last
 * was asked for); `failAt` errors instead.
 */
function pieces(count: number, size: number, failAt?: number, delayMs = 0): StreamedBody & { pulled: () => number } {
  let index = 0
  const stream = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (delayMs) await Bun.sleep(delayMs)
        if (index === failAt) return controller.error(new Error('The spooled upload ended early'))
        if (index === count) return controller.close()
        controller.enqueue(new Uint8Array(size).fill(index++ % 256))
      },
    },
    { highWaterMark: 0 },
  )
  return { stream, length: count * size, pulled: () => index }
}

const hashing = Bun.serve({
  hostname: '127.0.0.1',
  port: 0,
  async fetch(request) {
    const bytes = new Uint8Array(await request.arrayBuffer())
    return Response.json({ length: bytes.length, sha: new Bun.CryptoHasher('sha256').update(bytes).digest('hex') })
  },
})
afterAll(() => {
  for (const client of opened) client.close()
  hashing.stop(true)
})

test('a streamed body of 24 MiB reaches the upstream whole, and the connection carries the next request', async () => {
  const client = clientOf(hashing.port!)
  const hasher = new Bun.CryptoHasher('sha256')
  for (let index = 0; index < 96; index++) hasher.update(new Uint8Array(256 * 1024).fill(index))
  const sha = hasher.digest('hex')
  for (let round = 0; round < 2; round++) {
    const body = pieces(96, 256 * 1024)
    const answer = await client.request({ method: 'POST', path: '/upload', headers: {}, body })
    expect(JSON.parse(await answer.text())).toEqual({ length: 96 * 256 * 1024, sha })
    expect(client.connections).toBe(1)
  }
})

test('an upstream that answers before reading the body stops the upload; the connection is closed, not reused', async () => {
  let connections = 0
  // Answers once a connection, at its first bytes, and reads (drops) whatever else comes.
  const refusing = Bun.listen<{ answered?: boolean }>({
    hostname: '127.0.0.1',
    port: 0,
    socket: {
      open(socket) {
        connections++
        socket.data = {}
      },
      data(socket) {
        if (socket.data.answered) return
        socket.data.answered = true
        socket.write('HTTP/1.1 413 Payload Too Large\r\ncontent-type: application/json\r\ncontent-length: 15\r\n\r\n{"error":"big"}')
      },
    },
  })
  const client = clientOf(refusing.port)
  // 64 MiB, slowly: never sent whole, and the socket has taken each piece when the answer comes.
  const body = pieces(1024, 64 * 1024, undefined, 10)
  const answer = await client.request({ method: 'POST', path: '/upload', headers: {}, body })
  expect(answer.status).toBe(413)
  expect(await answer.text()).toBe('{"error":"big"}')
  await Bun.sleep(50)
  expect(body.pulled()).toBeLessThan(1024)
  expect(client.connections).toBe(0)
  const again = await client.request({ method: 'POST', path: '/small', headers: {}, body: 'x', signal: AbortSignal.timeout(1000) })
  expect(again.status).toBe(413)
  expect(connections).toBe(2)
  refusing.stop(true)
})

test('a body that fails to read fails the request, and frees its connection', async () => {
  const client = clientOf(hashing.port!)
  const error = await client
    .request({ method: 'POST', path: '/upload', headers: {}, body: pieces(8, 64 * 1024, 3) })
    .catch((failure: unknown) => failure)
  expect(error).toBeInstanceOf(RequestBodyFailed)
  expect(String(error)).toContain('ended early')
  expect(client.connections).toBe(0)
  const answer = await client.request({ method: 'POST', path: '/upload', headers: {}, body: 'abc' })
  expect(JSON.parse(await answer.text()).length).toBe(3)
})
