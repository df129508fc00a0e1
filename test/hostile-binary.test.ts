import { afterAll, beforeAll, expect, test } from 'bun:test'
import { connect, type Socket } from 'node:net'
import { join } from 'node:path'
import OpenAI from 'openai'
import { makeWorkspace, runCli, startServe } from './support/cli.ts'
import { memoryOf } from './support/memory.ts'
import { ensureBinary } from './support/binary.ts'
import { startFaultyUpstream } from './support/faulty-upstream.ts'
import { startHostileUpstream } from './support/hostile-upstream.ts'
import { floodUnauthenticatedBodies } from './support/huge-body.ts'
import { jsonReply, startUpstream } from './support/upstream.ts'
import { bunHeaderLimit } from '../src/edge/body-size.ts'
import { describeLatency, percentile as percentileOf, startLatencyProbe } from './support/latency-probe.ts'
import { expectBatchStallsMet, logBatchStalls, stallWithFailingBatches, stallWithUploads } from './support/batch-stalls.ts'

/**
 * ISSUE 15, "Done means": the shipped artefact — the compiled binary, not `bun src/main.ts` — under every kind of
 * abuse at once. For 20 s, on loopback: a client that asks for a stream and never reads it, 150 sockets trickling
 * their bodies, 45,000-deep JSON from account A, console sign-in attempts rotating X-Forwarded-For, and requests to
 * hostile upstreams (an SSE line that never ends, a 50 MB JSON body, a 401 quoting the operator's key), and strangers'
 * 150 MB bodies to /admin/api and /console/api, a $0 account's 20,000-item batches and uploads made batches (issue
 * 22; support/batch-stalls.ts). Throughout,
 * account B's requests on a healthy route all succeed, /healthz answers in time, the binary's memory stays bounded
 * (peak RSS recorded below), client input never gets a 5xx, and no secret reaches a response or the binary's log.
 */
const root = join(import.meta.dir, '..')
const binary = join(root, 'dist', 'tollgate')
const scenarioMs = 20_000

const operatorKeys = {
  healthy: 'sk-proj-HEALTHYoperator0123456789abcdef',
  line: 'sk-proj-LINEoperator0123456789abcdefgh',
  json: 'sk-proj-JSONoperator0123456789abcdefgh',
  stream: 'sk-proj-STREAMoperator0123456789abcdef',
  echoOpenai: 'sk-proj-ECHOoperator0123456789abcdefgh',
  echoAnthropic: 'sk-ant-api03-ECHOoperator0123456789abcd',
}

const healthy = startFaultyUpstream({ kind: 'ok', text: 'still here' })
const endlessLine = startHostileUpstream({ kind: 'endless-line' })
const hugeJson = startHostileUpstream({ kind: 'huge-json', bytes: 50 * 1024 * 1024 })
const endlessStream = startHostileUpstream({ kind: 'endless-stream' })
// Refuses every key and quotes the one it got, whole and in pieces, as a careless proxy does.
const echo = startUpstream((request) => {
  const got = request.headers.authorization ?? request.headers['x-api-key'] ?? ''
  const bare = got.replace(/^Bearer /, '')
  const message = `Incorrect API key provided: ${got}. Key ${bare.slice(0, 4)}…${bare.slice(8, 24)}… is not valid. (${bare})`
  if (request.headers['x-api-key']) return jsonReply({ type: 'error', error: { type: 'authentication_error', message } }, 401)
  return jsonReply({ error: { message, type: 'invalid_request_error', code: 'invalid_api_key' } }, 401)
})

let server: Awaited<ReturnType<typeof startServe>> | undefined
let keyA = ''
let keyB = ''
let password = ''
/** ISSUE 22: a key of an account with no money at all, whose batches every item of is refused. */
let keyPauper = ''

beforeAll(async () => {
  // test/binary.test.ts may already have built it in this run; built only when it is missing or stale.
  ensureBinary()
  const provider = (name: string, type: string, url: string, key: string) =>
    `  - { name: ${name}, type: ${type}, base_url: ${url}, api_key: ${key} }\n`
  const { config } =
    makeWorkspace(`limits: { body_timeout_ms: 2000, write_idle_ms: 2000, upstream_event_bytes: 1048576, upstream_body_bytes: 8388608 }
routing: { max_attempts: 2, backoff_ms: 1, backoff_max_ms: 1, min_requests: 4, failure_ratio: 0.5, cooldown_s: 1 }
providers:
${provider('healthy', 'openai', `${healthy.url}/v1`, operatorKeys.healthy)}${provider('line', 'openai', `${endlessLine.url}/v1`, operatorKeys.line)}${provider('json', 'openai', `${hugeJson.url}/v1`, operatorKeys.json)}${provider('stream', 'openai', `${endlessStream.url}/v1`, operatorKeys.stream)}${provider('echo-openai', 'openai', `${echo.url}/v1`, operatorKeys.echoOpenai)}${provider('echo-anthropic', 'anthropic', echo.url, operatorKeys.echoAnthropic)}models:
  - { id: shared, provider: healthy, upstream_model: up, price: { input: 1, output: 2 } }
  - { id: endless-line, provider: line, price: { input: 1, output: 2 } }
  - { id: huge-json, provider: json, price: { input: 1, output: 2 } }
  - { id: endless-stream, provider: stream, price: { input: 1, output: 2 } }
  - { id: echo-openai, provider: echo-openai, price: { input: 1, output: 2 } }
  - { id: echo-anthropic, provider: echo-anthropic, price: { input: 1, output: 2 } }
`)
  const cli = [binary]
  const run = (...args: string[]) => runCli(cli, [...args, '--config', config])
  expect(run('migrate').code).toBe(0)
  expect(run('account', 'create', 'attacker', '--balance', '1000').code).toBe(0)
  expect(run('account', 'create', 'victim', '--balance', '100').code).toBe(0)
  keyA = run('key', 'create', '--account', 'attacker', '--json').json().key as string
  keyB = run('key', 'create', '--account', 'victim', '--json').json().key as string
  expect(run('account', 'create', 'pauper', '--balance', '0').code).toBe(0)
  keyPauper = run('key', 'create', '--account', 'pauper', '--json').json().key as string
  password = run('user', 'create', 'root', '--admin', '--json').json().password as string
  expect(password.length).toBeGreaterThan(8)
  server = await startServe(cli, config)
}, 60_000)

afterAll(async () => {
  server?.process.kill('SIGTERM')
  await server?.process.exited
  for (const upstream of [healthy, endlessLine, hugeJson, endlessStream]) upstream.stop()
  await echo.stop()
})

const percentile = (values: number[], share: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * share))]!
/** Connection-level failures any loop met (what, when, error code), reported and asserted at the end. */
const broken: string[] = []
/** One fetch; a failed connection is recorded (with when and what) rather than ending the scenario. */
async function fetchOrRecord(what: string, url: string, init?: RequestInit): Promise<Response> {
  try {
    return await fetch(url, init)
  } catch (error: any) {
    broken.push(`${what} at ${(performance.now() / 1000).toFixed(1)} s: ${error?.code ?? error}`)
    return new Response('', { status: 599 })
  }
}
const statusOf = (response: string) => Number(/^HTTP\/1\.1 (\d{3})/.exec(response)?.[1] ?? 0)

interface RawExchange {
  socket: Socket
  response: string
  openedAt: number
  closedAt?: number
  closed: Promise<void>
}

/** A raw HTTP/1.1 request: its head at once, then its body at `everyMs` per byte (trickled), whole, or never read back. */
function rawRequest(
  url: string,
  path: string,
  headers: Record<string, string>,
  body: string,
  mode: { trickleMs?: number; neverRead?: boolean },
): RawExchange {
  const { hostname, port } = new URL(url)
  let settle = () => {}
  const exchange: RawExchange = {
    socket: undefined as unknown as Socket,
    response: '',
    openedAt: performance.now(),
    closed: new Promise((resolve) => (settle = resolve)),
  }
  const socket = connect(Number(port), hostname, () => {
    if (mode.neverRead) socket.pause()
    const head = Object.entries({
      host: `${hostname}:${port}`,
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(body)),
      ...headers,
    })
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('')
    if (mode.trickleMs === undefined) return void socket.write(`POST ${path} HTTP/1.1\r\n${head}\r\n${body}`)
    socket.write(`POST ${path} HTTP/1.1\r\n${head}\r\n`)
    let sent = 0
    const timer = setInterval(
      () => (socket.destroyed || sent >= body.length ? clearInterval(timer) : socket.write(body[sent++]!)),
      mode.trickleMs,
    )
    socket.on('close', () => clearInterval(timer))
  })
  socket.on('data', (data) => (exchange.response += data.toString()))
  socket.on('close', () => {
    exchange.closedAt = performance.now()
    settle()
  })
  socket.on('error', () => {})
  exchange.socket = socket
  return exchange
}

/** A ~90 KB tool schema nested 45,000 levels deep, written as text: no SDK can serialize it. */
const deepBody = `{"model":"shared","max_tokens":10,"messages":[{"role":"user","content":"hi"}],"tools":[{"name":"deep","input_schema":{"type":"object","properties":{},"deep":${'['.repeat(45_000)}${']'.repeat(45_000)}}}]}`

/** Send one raw request whose headers carry `padding` bytes, and read everything the binary answers. */
function sendWithPadding(padding: number): Promise<string> {
  const { hostname, port } = new URL(server!.url)
  return new Promise<string>((resolve) => {
    let text = ''
    const socket = connect(Number(port), hostname, () =>
      socket.write(
        `POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${keyB}\r\nx-padding: ${'a'.repeat(padding)}\r\ncontent-length: 2\r\n\r\n{}`,
      ),
    )
    socket.on('data', (data) => (text += data.toString()))
    socket.on('close', () => resolve(text))
    socket.on('error', () => resolve(text))
  })
}

/**
 * Headers over the gateway's 16 KiB get a 431 in the caller's protocol shape: the binary is built with Bun's own
 * limit raised to 64 KiB (`--compile-exec-argv`), so the gateway's check runs first. Past Bun's limit, Bun answers
 * before any of the gateway's code: a bare 431, the connection closed. Either way nothing is held and it serves on.
 */
test("oversized request headers: a 431 in the protocol shape below 64 KiB, Bun's bare 431 beyond; the binary serves on", async () => {
  const shaped = await sendWithPadding(20_000)
  expect(shaped).toStartWith('HTTP/1.1 431 ')
  const body = JSON.parse(shaped.split('\r\n\r\n')[1]!) as { error: { code: string; message: string } }
  expect(body.error.code).toBe('headers_too_large')
  expect(shaped.toLowerCase()).toContain('connection: close')
  const bare = await sendWithPadding(bunHeaderLimit + 1000)
  expect(bare).toStartWith('HTTP/1.1 431 ')
  expect(bare.split('\r\n\r\n')[1]).toBe('')
  expect((await fetch(`${server!.url}/healthz`)).status).toBe(200)
})

test('the compiled binary under every abuse at once: B served, /healthz in time, memory bounded, no 5xx for client input, no secret out', async () => {
  const url = server!.url
  const pid = server!.process.pid
  const startedAt = performance.now()
  const until = startedAt + scenarioMs
  const running = () => performance.now() < until
  /** Every response body any client received, to search for secrets at the end. */
  const bodies: string[] = []
  const rssStart = memoryOf(pid).rss
  let rssPeak = rssStart

  const sampleMemory = async () => {
    while (running()) {
      rssPeak = Math.max(rssPeak, memoryOf(pid).rss)
      await Bun.sleep(100)
    }
  }

  const healthz: { ms: number; status: number }[] = []
  const probeHealth = async () => {
    while (running()) {
      const asked = performance.now()
      const response = await fetchOrRecord('healthz', `${url}/healthz`)
      if (response.status === 599) continue
      await response.text()
      healthz.push({ ms: performance.now() - asked, status: response.status })
      await Bun.sleep(Math.max(0, 50 - (performance.now() - asked)))
    }
  }

  // Account B, on the route the attacker's deep JSON aims at: every request answered, whole and streamed.
  const victim: { status: number; text: string }[] = []
  const serveVictim = async () => {
    const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: keyB, maxRetries: 0, timeout: 10_000 })
    for (let round = 0; running(); round++) {
      try {
        if (round % 2) {
          const stream = await client.chat.completions.create({
            model: 'shared',
            stream: true,
            messages: [{ role: 'user', content: 'hello' }],
          })
          let text = ''
          for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? ''
          victim.push({ status: 200, text })
        } else {
          const answer = await client.chat.completions.create({ model: 'shared', messages: [{ role: 'user', content: 'hello' }] })
          victim.push({ status: 200, text: answer.choices[0]!.message.content ?? '' })
        }
      } catch (error: any) {
        victim.push({ status: error?.status ?? 0, text: String(error?.message ?? error) })
      }
      bodies.push(victim.at(-1)!.text)
      await Bun.sleep(50)
    }
  }

  // Account A: JSON nested 45,000 deep at the shared route (it once overflowed the gateway and opened the route).
  const deep: number[] = []
  const sendDeep = async () => {
    while (running()) {
      const response = await fetchOrRecord('deep', `${url}/v1/messages`, {
        method: 'POST',
        body: deepBody,
        headers: { 'x-api-key': keyA, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
      })
      if (response.status === 599) continue
      const text = await response.text()
      bodies.push(text)
      deep.push(response.status)
      if (response.status === 400) expect(JSON.parse(text)).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } })
      await Bun.sleep(100)
    }
  }

  // Console sign-in guesses, each from a "new" address in X-Forwarded-For (no proxy is trusted: it must not help).
  const signIns: number[] = []
  const guess = async () => {
    for (let attempt = 0; running(); attempt++) {
      const response = await fetchOrRecord('sign-in', `${url}/console/api/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': `198.18.${(attempt >> 8) & 255}.${attempt & 255}` },
        body: JSON.stringify({ username: attempt % 2 ? 'root' : `guess-${attempt}`, password: `wrong-${attempt}` }),
      })
      if (response.status === 599) continue
      bodies.push(await response.text())
      signIns.push(response.status)
      await Bun.sleep(100)
    }
  }

  // Account A at the hostile upstreams, in turn. These are the upstream's faults: a 502 (or 503 while the route's
  // breaker is open), in the caller's protocol, quickly — never the upstream's bytes or key.
  const hostile: { what: string; status: number; ms: number; text: string }[] = []
  const chatAt = (model: string, stream: boolean) => () =>
    fetchOrRecord(`chat ${model}`, `${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${keyA}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model, stream, messages: [{ role: 'user', content: 'hi' }] }),
    })
  const messagesAt = (model: string, stream: boolean) => () =>
    fetchOrRecord(`messages ${model}`, `${url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': keyA, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
      body: JSON.stringify({ model, max_tokens: 50, stream, messages: [{ role: 'user', content: 'hi' }] }),
    })
  const hostileRequests: [string, () => Promise<Response>][] = [
    ['endless line, passthrough', chatAt('endless-line', true)],
    ['50 MB JSON, passthrough', chatAt('huge-json', false)],
    ['401 echoing the key, passthrough', chatAt('echo-openai', false)],
    ['endless line, translated', messagesAt('endless-line', true)],
    ['50 MB JSON, translated', messagesAt('huge-json', false)],
    ['401 echoing the key, translated', chatAt('echo-anthropic', false)],
    ['401 echoing the key, anthropic', messagesAt('echo-anthropic', false)],
  ]
  const abuseUpstreams = async () => {
    for (let round = 0; running(); round++) {
      const [what, send] = hostileRequests[round % hostileRequests.length]!
      const asked = performance.now()
      const response = await send()
      if (response.status === 599) continue
      const text = await response.text()
      bodies.push(text)
      hostile.push({ what, status: response.status, ms: performance.now() - asked, text: text.slice(0, 300) })
      await Bun.sleep(50)
    }
  }

  // 120 sockets with A's key trickling a body a byte every 200 ms (each is cut at body_timeout_ms, then replaced),
  // and 30 without a valid key, rotating X-Forwarded-For (refused from their headers, then replaced).
  const trickled: { keyed: boolean; exchange: RawExchange }[] = []
  const trickler = async (keyed: boolean, index: number) => {
    for (let round = 0; running(); round++) {
      const headers: Record<string, string> = keyed
        ? index % 2
          ? { authorization: `Bearer ${keyA}` }
          : { 'x-api-key': keyA, 'anthropic-version': '2023-06-01' }
        : { authorization: `Bearer sk-made-up-${index}-${round}`, 'x-forwarded-for': `203.0.${index}.${round & 255}` }
      const exchange = rawRequest(url, index % 2 ? '/v1/chat/completions' : '/v1/messages', headers, ' '.repeat(1000), { trickleMs: 200 })
      trickled.push({ keyed, exchange })
      await exchange.closed
      if (!keyed) await Bun.sleep(500)
    }
  }

  // A's client that asks for an endless stream and never reads: ended at write_idle_ms (2 s), then another.
  const neverRead: { exchange: RawExchange; upstreamRead: number }[] = []
  const stallStreams = async () => {
    while (running()) {
      const closedBefore = endlessStream.closed
      const writtenBefore = endlessStream.written
      const exchange = rawRequest(
        url,
        '/v1/chat/completions',
        { authorization: `Bearer ${keyA}` },
        JSON.stringify({ model: 'endless-stream', stream: true, messages: [{ role: 'user', content: 'hi' }] }),
        { neverRead: true },
      )
      const giveUp = performance.now() + 10_000
      while (endlessStream.closed === closedBefore && performance.now() < giveUp) await Bun.sleep(100)
      neverRead.push({ exchange, upstreamRead: endlessStream.written - writtenBefore })
      exchange.socket.destroy()
      await Bun.sleep(200)
    }
  }

  const strangerBodies = floodUnauthenticatedBodies(url, running)
  // ISSUE 22: /healthz measured from a Worker too (its own event loop: the test thread's own load cannot blur it).
  const workerProbe = await startLatencyProbe([{ name: '/healthz (from another process)', url: `${url}/healthz` }], 20)
  const [, , , , , , , , batchStall, uploadStall] = await Promise.all([
    sampleMemory(),
    probeHealth(),
    serveVictim(),
    sendDeep(),
    guess(),
    abuseUpstreams(),
    stallStreams(),
    strangerBodies.run(),
    stallWithFailingBatches(url, keyPauper, running, fetchOrRecord),
    stallWithUploads(url, keyA, running, fetchOrRecord),
    ...Array.from({ length: 120 }, (_, index) => trickler(true, index)),
    ...Array.from({ length: 30 }, (_, index) => trickler(false, index)),
  ])
  const probed = await workerProbe.stop()
  const elapsed = performance.now() - startedAt
  for (const { exchange } of trickled) exchange.socket.destroy()
  const rssPeakKernel = memoryOf(pid).peak
  await Bun.sleep(200)
  server!.process.kill('SIGTERM')
  await server!.process.exited
  const log = server!.output() + (await new Response(server!.process.stderr).text())

  // What the test saw, for the record.
  const ms = healthz.map((probe) => probe.ms)
  const finished = trickled.filter(({ exchange }) => exchange.response)
  console.log(`scenario ${(elapsed / 1000).toFixed(1)} s on loopback against dist/tollgate (pid ${pid})`)
  console.log(
    `binary RSS: ${rssStart.toFixed(0)} MB at start, sampled peak ${rssPeak.toFixed(0)} MB, kernel peak (VmHWM) ${rssPeakKernel.toFixed(0)} MB`,
  )
  console.log(
    `/healthz: ${ms.length} probes, median ${percentile(ms, 0.5).toFixed(1)} ms, p90 ${percentile(ms, 0.9).toFixed(1)} ms, slowest ${Math.max(...ms).toFixed(1)} ms`,
  )
  console.log(
    `account B: ${victim.length} requests, ${victim.filter((one) => one.status === 200 && one.text === 'still here').length} answered`,
  )
  console.log(
    `account A: ${deep.length} deep-JSON requests (${[...new Set(deep)].join('/')}); ${trickled.length} trickling sockets opened (${trickled.filter((one) => one.keyed).length} with a key), ${finished.length} answered`,
  )
  console.log(`connection failures: ${broken.length ? broken.join('; ') : 'none'}`)
  console.log(`sign-in guesses: ${signIns.length} (${signIns.filter((status) => status === 429).length} throttled)`)
  console.log(
    `never-reading streams: ${neverRead.length}, upstream bytes read for each (MB): ${neverRead.map((one) => (one.upstreamRead / 1e6).toFixed(1)).join(' ')}`,
  )
  const byWhat = Map.groupBy(hostile, (one) => one.what)
  for (const [what, results] of byWhat) {
    const statuses = Object.entries(Object.groupBy(results, (one) => String(one.status)))
      .map(([status, some]) => `${some!.length} × ${status}`)
      .join(', ')
    console.log(`hostile upstream, ${what}: ${statuses}; slowest ${Math.max(...results.map((one) => one.ms)).toFixed(0)} ms`)
  }
  console.log(strangerBodies.report())
  const workerHealthz = probed.samples['/healthz (from another process)']!
  console.log(describeLatency('/healthz (from another process)', workerHealthz))
  logBatchStalls(batchStall, uploadStall)
  console.log(
    `hostile upstreams: endless line gave ${(endlessLine.written / 1e6).toFixed(1)} MB over ${endlessLine.requests} requests, 50 MB JSON gave ${(hugeJson.written / 1e6).toFixed(1)} MB over ${hugeJson.requests}, the echo ${echo.requests.length} refusals`,
  )

  // Memory bounded: the kernel's own high-water mark, not only our samples. The abuses of ISSUE 15 alone peak ~270 MB;
  // ISSUE 22's batch work (20 MiB uploads, 50,000-line and 20,000-request batches, made and dropped in turn) adds the
  // garbage of its tens of MB of input until the collector catches up: ~200 MB more at peak, none of it kept (a forced
  // collection after each brought the binary back to ~160 MB).
  expect(rssPeakKernel).toBeLessThan(600)
  // /healthz: 100 ms is the goal; the test process drives ~160 sockets and two 50 MB producers itself, so a sample
  // can carry its own scheduling delay on a loaded 2-core machine — nine in ten within 100 ms, none past 300.
  expect(healthz.every((probe) => probe.status === 200)).toBe(true)
  expect(ms.length).toBeGreaterThan(scenarioMs / 200)
  expect(percentile(ms, 0.9)).toBeLessThan(100)
  expect(Math.max(...ms)).toBeLessThan(300)
  // ISSUE 22: batch work and uploads never hold the loop; p99 within 50 ms, measured where the test's load cannot blur it.
  expect(probed.failures).toEqual([])
  expect(percentileOf(workerHealthz, 0.99)).toBeLessThanOrEqual(50)
  expectBatchStallsMet(batchStall, uploadStall)
  // Account B: every request answered on the route A attacked, which stayed closed.
  expect(victim.length).toBeGreaterThan(20)
  expect(victim.filter((one) => one.status !== 200 || one.text !== 'still here')).toEqual([])
  // A request on a kept-alive connection from fetch's pool can meet the gateway closing it as idle (write_idle_ms):
  // seen once in several runs, as ECONNRESET on one request. More than that is a failure.
  expect(broken.length).toBeLessThanOrEqual(2)
  // Client input: 4xx, never a 5xx.
  expect(deep.length).toBeGreaterThan(10)
  expect(deep.every((status) => status === 400)).toBe(true)
  expect(signIns.every((status) => status === 401 || status === 429)).toBe(true)
  expect(signIns.filter((status) => status === 429).length).toBeGreaterThan(signIns.length / 2) // rotating the header buys nothing
  expect(trickled.filter(({ keyed }) => keyed).length).toBeGreaterThanOrEqual(120)
  for (const { keyed, exchange } of finished) {
    const status = statusOf(exchange.response)
    if (keyed) {
      // Cut at the body deadline (2 s), in its protocol's shape, connection closed.
      expect(status).toBe(408)
      expect(exchange.closedAt! - exchange.openedAt).toBeGreaterThan(1900)
    } else {
      expect([401, 429]).toContain(status)
    }
  }
  expect(finished.filter(({ keyed }) => keyed).length).toBeGreaterThan(240)
  strangerBodies.check()
  // Never-reading clients: each ended at the write deadline, the upstream held back meanwhile.
  expect(neverRead.length).toBeGreaterThanOrEqual(3)
  for (const one of neverRead.slice(0, -1)) expect(one.upstreamRead).toBeLessThan(32 * 1024 * 1024)
  // Hostile upstreams: each kind met, each a 502 or 503 in the caller's shape, none slow.
  expect(byWhat.size).toBe(hostileRequests.length)
  for (const one of hostile) {
    expect([502, 503]).toContain(one.status)
    expect(one.ms).toBeLessThan(5000)
    expect(one.text.length).toBeLessThan(2000)
  }
  // No secret anywhere: not the operator's upstream keys (whole or the pieces an upstream quotes), not a client's key,
  // not the admin's password — in no response and no log line.
  const secrets = [...Object.values(operatorKeys), ...Object.values(operatorKeys).map((key) => key.slice(8, 24)), keyA, keyB, password]
  const everything = bodies.join('\n') + finished.map(({ exchange }) => exchange.response).join('\n')
  // An upstream refusing the operator's key: the client gets a fixed message, the log the upstream's text (scrubbed).
  expect(bodies.some((body) => body.includes("The upstream refused the gateway's credentials"))).toBe(true)
  expect(bodies.some((body) => body.includes('Incorrect API key provided'))).toBe(false)
  expect(log).toContain('Incorrect API key provided')
  for (const secret of secrets) {
    expect(everything.includes(secret) ? `response has ${secret}` : '').toBe('')
    expect(log.includes(secret) ? `log has ${secret}` : '').toBe('')
  }
}, 90_000)
