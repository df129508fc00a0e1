import { afterAll, describe, expect, test } from 'bun:test'
import type { TCPSocketListener } from 'bun'
import { startStalledListener } from '../../test/support/stalled-listener.ts'
import { type BodySink, ConnectionFailed, defaultHttp1ClientOptions, Http1Client, type Http1ClientOptions } from './http1-client.ts'

/** A loopback upstream: /whole (an echo), /stream (three events 100 ms apart), /slow (after 100 ms), /big (5 MB). */
const upstream = Bun.serve({
  hostname: '127.0.0.1',
  port: 0,
  idleTimeout: 30,
  async fetch(request) {
    const path = new URL(request.url).pathname
    if (path === '/whole') return Response.json({ echo: await request.text(), auth: request.headers.get('authorization') })
    if (path === '/slow') {
      await Bun.sleep(100)
      return new Response('slow')
    }
    const big = path === '/big'
    return new Response(
      new ReadableStream({
        async pull(controller) {
          if (big) {
            for (let index = 0; index < 80; index++) controller.enqueue(new Uint8Array(64 * 1024).fill(97))
          } else {
            for (const word of ['one', 'two', 'three']) {
              controller.enqueue(new TextEncoder().encode(`data: ${word}\n\n`))
              await Bun.sleep(100)
            }
          }
          controller.close()
        },
      }),
      { headers: { 'content-type': big ? 'application/octet-stream' : 'text/event-stream' } },
    )
  },
})

/**
 * A raw TCP upstream whose every connection gets `reply` as it is to its first request, then is closed — or, with
 * `hold`, kept open and never answered again.
 */
function rawUpstream(reply: string, hold = false): TCPSocketListener<{ answered?: boolean }> {
  return Bun.listen<{ answered?: boolean }>({
    hostname: '127.0.0.1',
    port: 0,
    socket: {
      open(socket) {
        socket.data = {}
      },
      data(socket) {
        if (socket.data.answered) return
        socket.data.answered = true
        socket.write(reply)
        if (!hold) socket.end()
      },
    },
  })
}

const opened: Http1Client[] = []
function client(url: string, options: Partial<Http1ClientOptions> = {}): Http1Client {
  const made = new Http1Client(new URL(url), { ...defaultHttp1ClientOptions, ...options })
  opened.push(made)
  return made
}
const post = (path: string, extra: { signal?: AbortSignal; headers?: Record<string, string> } = {}) => ({
  method: 'POST',
  path,
  headers: { 'content-type': 'application/json', ...extra.headers },
  body: '{"q":"é"}',
  signal: extra.signal,
})
afterAll(() => {
  for (const made of opened) made.close()
  upstream.stop(true)
})

describe('answers', () => {
  test('a whole answer, and one kept-alive connection for requests one after another', async () => {
    const http = client(upstream.url.href)
    for (let index = 0; index < 3; index++) {
      const answer = await http.request(post('/whole', { headers: { authorization: 'Bearer k' } }))
      expect(answer.status).toBe(200)
      expect(answer.headers.get('content-type')).toContain('application/json')
      expect(JSON.parse(await answer.text())).toEqual({ echo: '{"q":"é"}', auth: 'Bearer k' })
    }
    expect(http.connections).toBe(1)
  })

  test("a stream's chunks are read as they come, not when the answer ends", async () => {
    const http = client(upstream.url.href)
    const started = performance.now()
    const answer = await http.request(post('/stream'))
    const first = await answer.read()
    expect(new TextDecoder().decode(first.value)).toBe('data: one\n\n')
    expect(performance.now() - started).toBeLessThan(150) // the last event comes 200 ms after the first
    let rest = ''
    for (let next = await answer.read(); !next.done; next = await answer.read()) rest += new TextDecoder().decode(next.value)
    expect(rest).toBe('data: two\n\ndata: three\n\n')
    expect((await answer.read()).done).toBe(true)
  })

  test('an unread body pauses the socket past the high-water mark, and is read whole afterwards', async () => {
    const http = client(upstream.url.href, { highWaterBytes: 256 * 1024 })
    const answer = await http.request({ method: 'GET', path: '/big', headers: {}, body: '' })
    await Bun.sleep(200)
    // Paused past 256 KB: what waits is a socket read or so beyond it, not the 5 MB the upstream had to send.
    expect(answer.buffered).toBeGreaterThan(256 * 1024)
    expect(answer.buffered).toBeLessThan(2 * 1024 * 1024)
    let total = 0
    for (let next = await answer.read(); !next.done; next = await answer.read()) total += next.value.byteLength
    expect(total).toBe(80 * 64 * 1024)
  })
})

describe('piped answers', () => {
  /** A sink that keeps what it is given; with `full`, each piece's write waits for that promise. */
  class Keeper implements BodySink {
    bytes = 0
    text = ''
    ended = false
    failure: unknown
    private finished!: () => void
    readonly done = new Promise<void>((resolve) => (this.finished = resolve))
    constructor(private readonly full?: Promise<unknown>) {}
    chunk(bytes: Uint8Array): Promise<unknown> | undefined {
      this.bytes += bytes.byteLength
      if (bytes.byteLength < 100) this.text += new TextDecoder().decode(bytes)
      return this.full
    }
    end(): void {
      this.ended = true
      this.finished()
    }
    fail(error: unknown): void {
      this.failure = error
      this.finished()
    }
  }
  const keeper = (full?: Promise<unknown>) => new Keeper(full)

  test("a piped stream's pieces go to the sink as they come (those before the pipe first), then its end", async () => {
    const answer = await client(upstream.url.href).request(post('/stream'))
    await Bun.sleep(10) // the first event arrives before anyone takes it
    const sink = keeper()
    answer.pipe(sink)
    expect(sink.text).toBe('data: one\n\n')
    await sink.done
    expect(sink.text).toBe('data: one\n\ndata: two\n\ndata: three\n\n')
    expect(sink.ended).toBe(true)
  })

  test('a sink that is full pauses the socket until its write settles', async () => {
    let drained!: () => void
    const sink = keeper(new Promise<void>((resolve) => (drained = resolve)))
    const answer = await client(upstream.url.href).request({ method: 'GET', path: '/big', headers: {}, body: '' })
    answer.pipe(sink)
    await Bun.sleep(200)
    expect(sink.bytes).toBeLessThan(2 * 1024 * 1024) // of 5 MB the upstream would send at once
    drained()
    await sink.done
    expect(sink.bytes).toBe(80 * 64 * 1024)
  })

  test('an upstream that closes mid-body fails the sink', async () => {
    const cut = rawUpstream('HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly this')
    const sink = keeper()
    ;(await client(`http://127.0.0.1:${cut.port}`).request(post('/'))).pipe(sink)
    await sink.done
    expect(sink.failure).toBeInstanceOf(ConnectionFailed)
    expect(sink.text).toBe('only this')
    cut.stop(true)
  })
})

describe('connections', () => {
  test('at most maxConnections at once; the other requests wait their turn and all are answered', async () => {
    const http = client(upstream.url.href, { maxConnections: 2 })
    let most = 0
    const watch = setInterval(() => (most = Math.max(most, http.connections)), 5)
    const answers = await Promise.all(
      Array.from({ length: 6 }, async () => await (await http.request({ method: 'GET', path: '/slow', headers: {}, body: '' })).text()),
    )
    clearInterval(watch)
    expect(answers).toEqual(Array(6).fill('slow'))
    expect(most).toBe(2)
    expect(http.connections).toBe(2)
  })

  test('an answer that says Connection: close is not reused, even while the upstream keeps the socket open', async () => {
    const oneAnswer = rawUpstream('HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 3\r\n\r\nbye', true)
    const http = client(`http://127.0.0.1:${oneAnswer.port}`)
    for (let index = 0; index < 2; index++) {
      const answer = await http.request({ ...post('/'), signal: AbortSignal.timeout(1000) })
      expect(await answer.text()).toBe('bye')
    }
    expect(http.connections).toBe(0)
    oneAnswer.stop(true)
  })

  test('kept connections idle for idleMs are closed', async () => {
    const http = client(upstream.url.href, { idleMs: 50 })
    await (await http.request(post('/whole'))).text()
    expect(http.connections).toBe(1)
    await Bun.sleep(150)
    expect(http.connections).toBe(0)
  })

  test('kept connections do not keep a process alive: one that is done exits at once, not after idleMs', async () => {
    const script = `
      import { Http1Client } from '${import.meta.dir}/http1-client.ts'
      const http = new Http1Client(new URL('${upstream.url.href}'))
      const answer = await http.request({ method: 'POST', path: '/whole', headers: {}, body: 'x' })
      await answer.text()
      console.log(http.connections)`
    const started = performance.now()
    const child = Bun.spawn([process.execPath, '-e', script], { stdout: 'pipe' })
    expect((await new Response(child.stdout).text()).trim()).toBe('1')
    expect(await child.exited).toBe(0)
    expect(performance.now() - started).toBeLessThan(defaultHttp1ClientOptions.idleMs - 1000)
  })

  test('a refused connection fails the request, and its slot is free again', async () => {
    const listener = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } })
    const port = listener.port
    listener.stop(true)
    const http = client(`http://127.0.0.1:${port}`, { maxConnections: 1 })
    for (let index = 0; index < 2; index++) await expect(http.request(post('/whole'))).rejects.toBeInstanceOf(ConnectionFailed)
    await Bun.sleep(50)
    expect(http.connections).toBe(0)
  })
})

describe('aborts and failures', () => {
  test('an abort mid-body fails the read with its reason and closes the connection; the next request is answered', async () => {
    const http = client(upstream.url.href)
    const controller = new AbortController()
    const answer = await http.request(post('/stream', { signal: controller.signal }))
    await answer.read()
    controller.abort(new Error('client left'))
    await expect(answer.read()).rejects.toThrow('client left')
    await Bun.sleep(10)
    expect(http.connections).toBe(0)
    expect((await (await http.request(post('/whole'))).text()).length).toBeGreaterThan(0)
  })

  test('an abort while the TCP handshake hangs rejects at once', async () => {
    const stalled = await startStalledListener()
    const started = performance.now()
    const request = client(`http://127.0.0.1:${stalled.port}`).request({ ...post('/'), signal: AbortSignal.timeout(100) })
    await expect(request).rejects.toThrow('timed out')
    expect(performance.now() - started).toBeLessThan(1000)
    stalled.close()
  })

  test('an abort while waiting for a connection rejects at once and takes no slot', async () => {
    const http = client(upstream.url.href, { maxConnections: 1 })
    const busy = http.request({ method: 'GET', path: '/slow', headers: {}, body: '' })
    const controller = new AbortController()
    const waiting = http.request({ method: 'GET', path: '/slow', headers: {}, body: '', signal: controller.signal })
    controller.abort(new Error('gave up'))
    await expect(waiting).rejects.toThrow('gave up')
    expect(await (await busy).text()).toBe('slow')
    expect(await (await http.request(post('/whole'))).text()).toContain('echo')
    expect(http.connections).toBe(1)
  })

  test('an upstream that closes mid-body fails the read; one that sends no HTTP fails the request', async () => {
    const cut = rawUpstream('HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly this')
    const answer = await client(`http://127.0.0.1:${cut.port}`).request(post('/'))
    expect(await answer.read()).toEqual({ done: false, value: expect.anything() })
    await expect(answer.read()).rejects.toBeInstanceOf(ConnectionFailed)
    const garbage = rawUpstream('SSH-2.0-OpenSSH_9.6\r\n\r\n', true)
    await expect(client(`http://127.0.0.1:${garbage.port}`).request(post('/'))).rejects.toThrow('status line')
    const silent = rawUpstream('')
    await expect(client(`http://127.0.0.1:${silent.port}`).request(post('/'))).rejects.toBeInstanceOf(ConnectionFailed)
    await Bun.sleep(20)
    for (const listener of [cut, garbage, silent]) listener.stop(true)
  })

  test('a header that could end its line is refused before anything is sent', async () => {
    const http = client(upstream.url.href)
    await expect(http.request(post('/whole', { headers: { 'x-a': 'b\r\nx-injected: 1' } }))).rejects.toBeInstanceOf(TypeError)
    await expect(http.request(post('/whole', { headers: { 'x a': 'b' } }))).rejects.toBeInstanceOf(TypeError)
  })

  test('http: and https: origins only', () => {
    expect(() => new Http1Client(new URL('ftp://files.example'))).toThrow('http: and https:, not ftp:')
  })
})

test('a host name with an address of each family: the connection is made to whichever listens (IPv6 or IPv4)', async () => {
  // `localhost` is both ::1 and 127.0.0.1 here; Bun.connect tries the addresses at once and keeps the first to answer,
  // so a host whose IPv6 is broken still reaches an upstream over IPv4 (and the other way round).
  for (const hostname of ['127.0.0.1', '::1']) {
    const only = Bun.serve({ hostname, port: 0, fetch: () => new Response(`over ${hostname}`) })
    const client = new Http1Client(new URL(`http://localhost:${only.port}`))
    try {
      const answer = await client.request({ method: 'POST', path: '/', headers: {}, body: '', signal: AbortSignal.timeout(2000) })
      expect(await answer.text()).toBe(`over ${hostname}`)
    } finally {
      client.close()
      only.stop(true)
    }
  }
})
