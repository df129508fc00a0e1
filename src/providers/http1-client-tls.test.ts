import { afterAll, expect, test } from 'bun:test'
import { fixtureCertificate, startHttpsServer, type TlsFixture } from '../../test/support/tls-fixtures.ts'
import { ConnectionFailed, defaultHttp1ClientOptions, Http1Client } from './http1-client.ts'

/** `https:` origins over the own client: the certificate verified for the host before a byte of the request goes. */
const loopbackCa = fixtureCertificate('loopback')

let requests = 0
function httpsUpstream(name: TlsFixture) {
  return startHttpsServer(name, async (request) => {
    requests++
    if (new URL(request.url).pathname === '/stream') {
      return new Response(
        new ReadableStream({
          async pull(controller) {
            for (const word of ['one', 'two']) {
              controller.enqueue(new TextEncoder().encode(`data: ${word}\n\n`))
              await Bun.sleep(20)
            }
            controller.close()
          },
        }),
        { headers: { 'content-type': 'text/event-stream' } },
      )
    }
    if (new URL(request.url).pathname === '/upload') {
      const bytes = new Uint8Array(await request.arrayBuffer())
      return Response.json({ length: bytes.length, sha: new Bun.CryptoHasher('sha256').update(bytes).digest('hex') })
    }
    return Response.json({ echo: await request.text(), host: request.headers.get('host') })
  })
}
const loopback = httpsUpstream('loopback')
const elsewhere = httpsUpstream('elsewhere')

const opened: Http1Client[] = []
function client(url: string, ca?: string, idle: { idleMs?: number; tlsIdleMs?: number } = {}): Http1Client {
  const made = new Http1Client(new URL(url), { ...defaultHttp1ClientOptions, ...idle, ...(ca ? { ca } : {}) })
  opened.push(made)
  return made
}
const post = (path: string) => ({ method: 'POST', path, headers: { 'content-type': 'application/json' }, body: '{"q":"é"}' })
afterAll(() => {
  for (const made of opened) made.close()
  loopback.stop(true)
  elsewhere.stop(true)
})

test('an https: upstream whose certificate verifies: answered whole and streamed, over one kept connection', async () => {
  for (const host of ['127.0.0.1', 'localhost']) {
    const http = client(`https://${host}:${loopback.port}`, loopbackCa)
    const answer = await http.request(post('/whole'))
    expect(answer.status).toBe(200)
    expect(JSON.parse(await answer.text())).toEqual({ echo: '{"q":"é"}', host: `${host}:${loopback.port}` })
    const stream = await http.request(post('/stream'))
    let text = ''
    for (let next = await stream.read(); !next.done; next = await stream.read()) text += new TextDecoder().decode(next.value)
    expect(text).toBe('data: one\n\ndata: two\n\n')
    expect(http.connections).toBe(1)
  }
})

test("a certificate the runtime's roots do not vouch for is refused before the request is sent", async () => {
  const before = requests
  const error = await client(`https://127.0.0.1:${loopback.port}`)
    .request(post('/whole'))
    .catch((failure: unknown) => failure)
  expect(error).toBeInstanceOf(ConnectionFailed)
  expect(String(error)).toContain('SELF_SIGNED')
  expect(requests).toBe(before)
})

test('a trusted certificate for another host is refused: the name is checked, not only the chain', async () => {
  const before = requests
  const error = await client(`https://127.0.0.1:${elsewhere.port}`, fixtureCertificate('elsewhere'))
    .request(post('/whole'))
    .catch((failure: unknown) => failure)
  expect(error).toBeInstanceOf(ConnectionFailed)
  expect(String(error)).toContain('ALTNAME')
  expect(requests).toBe(before)
})

test('a refused handshake frees its slot: the next request may connect again', async () => {
  const http = new Http1Client(new URL(`https://127.0.0.1:${loopback.port}`), { ...defaultHttp1ClientOptions, maxConnections: 1 })
  opened.push(http)
  for (let index = 0; index < 3; index++) await expect(http.request(post('/whole'))).rejects.toBeInstanceOf(ConnectionFailed)
  expect(http.connections).toBe(0)
})

test('an https: connection is kept idle for tlsIdleMs (a new one costs a TLS handshake), an http: one for idleMs', async () => {
  const idle = { idleMs: 50, tlsIdleMs: 10_000 }
  const secure = client(`https://127.0.0.1:${loopback.port}`, loopbackCa, idle)
  await (await secure.request(post('/whole'))).text()
  const plain = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response('ok') })
  const bare = client(plain.url.href, undefined, idle)
  await (await bare.request(post('/whole'))).text()
  await Bun.sleep(200)
  expect(secure.connections).toBe(1)
  expect(bare.connections).toBe(0)
  plain.stop(true)
})

test('https: to a port that speaks plain HTTP fails the request at once, as a connection failure', async () => {
  const plain = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response('not tls') })
  const started = performance.now()
  await expect(client(`https://127.0.0.1:${plain.port}`, loopbackCa).request(post('/whole'))).rejects.toBeInstanceOf(ConnectionFailed)
  expect(performance.now() - started).toBeLessThan(1000)
  plain.stop(true)
})

/** Two requests at once: the kept connection takes one, a new connection the other. */
async function twoAtOnce(http: Http1Client): Promise<void> {
  const answers = await Promise.all([http.request(post('/whole')), http.request(post('/whole'))])
  for (const answer of answers) expect(answer.status).toBe(200)
  await Promise.all(answers.map((answer) => answer.text()))
}

test("a new connection resumes the TLS session of one already answered: the certificate's checks are not paid twice", async () => {
  const http = client(`https://127.0.0.1:${loopback.port}`, loopbackCa)
  await (await http.request(post('/whole'))).text()
  expect(http.session?.byteLength).toBeGreaterThan(0)
  expect(http.resumedHandshakes).toBe(0)
  await twoAtOnce(http)
  expect(http.connections).toBe(2)
  expect(http.resumedHandshakes).toBe(1)
})

test('an upstream that no longer knows the session (restarted, new ticket keys) is met with a full handshake', async () => {
  const first = startHttpsServer('loopback', () => new Response('first'))
  const port = first.port
  const http = client(`https://127.0.0.1:${port}`, loopbackCa)
  await (await http.request(post('/whole'))).text()
  expect(http.session).toBeDefined()
  first.stop(true)
  await Bun.sleep(50) // the kept connection's close is read
  const second = startHttpsServer('loopback', () => new Response('second'), port)
  try {
    const answer = await http.request(post('/whole'))
    expect(await answer.text()).toBe('second')
    expect(http.resumedHandshakes).toBe(0)
  } finally {
    second.stop(true)
  }
})

test('a streamed body (an upload) goes whole over TLS, no faster than the socket takes it, and the connection is kept', async () => {
  const http = client(`https://127.0.0.1:${loopback.port}`, loopbackCa)
  const piece = (index: number) => new Uint8Array(256 * 1024).fill(index)
  const hasher = new Bun.CryptoHasher('sha256')
  for (let index = 0; index < 48; index++) hasher.update(piece(index))
  for (let round = 0; round < 2; round++) {
    let index = 0
    const stream = new ReadableStream<Uint8Array>(
      { pull: (controller) => (index === 48 ? controller.close() : controller.enqueue(piece(index++))) },
      { highWaterMark: 0 },
    )
    const answer = await http.request({ method: 'POST', path: '/upload', headers: {}, body: { stream, length: 48 * 256 * 1024 } })
    expect(JSON.parse(await answer.text())).toEqual({ length: 48 * 256 * 1024, sha: hasher.copy().digest('hex') })
  }
  expect(http.connections).toBe(1)
})
