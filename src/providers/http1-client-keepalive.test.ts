import { afterAll, expect, test } from 'bun:test'
import { defaultHttp1ClientOptions, Http1Client, type Http1ClientOptions } from './http1-client.ts'

/**
 * How long a kept connection waits for its next request: never past what the upstream said it keeps one
 * (`Keep-Alive: timeout=N`, less a second), and an idle connection the upstream closes is never used again.
 */
let connections = 0
/**
 * Answers every request with `keepAlive` as its Keep-Alive header, `answerDelayMs()` after it came; with
 * `closeAfterMs`, closes each connection that long after answering.
 */
function upstreamSaying(keepAlive: string | undefined, closeAfterMs?: number, answerDelayMs = () => 0) {
  return Bun.listen({
    hostname: '127.0.0.1',
    port: 0,
    socket: {
      open() {
        connections++
      },
      data(socket) {
        const hint = keepAlive === undefined ? '' : `Keep-Alive: ${keepAlive}\r\n`
        setTimeout(() => {
          socket.write(`HTTP/1.1 200 OK\r\n${hint}Content-Length: 2\r\n\r\nok`)
          if (closeAfterMs !== undefined) setTimeout(() => socket.end(), closeAfterMs)
        }, answerDelayMs())
      },
    },
  })
}
const listeners: ReturnType<typeof upstreamSaying>[] = []
const clients: Http1Client[] = []
function clientOf(listener: ReturnType<typeof upstreamSaying>, options: Partial<Http1ClientOptions> = {}): Http1Client {
  listeners.push(listener)
  const made = new Http1Client(new URL(`http://127.0.0.1:${listener.port}`), { ...defaultHttp1ClientOptions, ...options })
  clients.push(made)
  return made
}
const ask = async (http: Http1Client) => (await http.request({ method: 'POST', path: '/', headers: {}, body: 'x' })).text()
afterAll(() => {
  for (const made of clients) made.close()
  for (const listener of listeners) listener.stop(true)
})

test('an upstream that keeps idle connections a second or less: each answer closes its connection', async () => {
  const http = clientOf(upstreamSaying('timeout=1, max=100'))
  expect(await ask(http)).toBe('ok')
  expect(http.connections).toBe(0)
})

test("an upstream's timeout=2 keeps the connection a second, not the client's own idle time", async () => {
  const http = clientOf(upstreamSaying('timeout=2'), { idleMs: 60_000 })
  expect(await ask(http)).toBe('ok')
  await Bun.sleep(100)
  expect(http.connections).toBe(1)
  await Bun.sleep(1200)
  expect(http.connections).toBe(0)
})

test('an idle connection the upstream closes is dropped: the next request opens a new one and is answered', async () => {
  const http = clientOf(upstreamSaying(undefined, 30), { idleMs: 60_000 })
  const before = connections
  expect(await ask(http)).toBe('ok')
  await Bun.sleep(100)
  expect(http.connections).toBe(0)
  expect(await ask(http)).toBe('ok')
  expect(connections - before).toBe(2)
})

test('a connection taken from the idle ones is not closed by its idle time while it carries a request', async () => {
  let delayMs = 0
  const http = clientOf(
    upstreamSaying(undefined, undefined, () => delayMs),
    { idleMs: 300 },
  )
  const before = connections
  expect(await ask(http)).toBe('ok')
  await Bun.sleep(200)
  delayMs = 250 // answered 450 ms after the connection first went idle: past that wait's 300 ms
  expect(await ask(http)).toBe('ok')
  expect(connections - before).toBe(1)
  await Bun.sleep(150) // idle anew: 150 of its 300 ms
  expect(http.connections).toBe(1)
  await Bun.sleep(250)
  expect(http.connections).toBe(0)
})
