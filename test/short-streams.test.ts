import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import OpenAI from 'openai'
import type { TCPSocketListener } from 'bun'
import { settledRowsOf } from './support/settled-rows.ts'
import { startTestGateway, type TestGateway } from './support/gateway.ts'

/**
 * A passthrough stream whose finish comes with its beginning (a short answer the upstream writes at once) is read to
 * its end and billed before its response begins, and goes out in one write: its head no longer leaves alone ahead of
 * the bill. Its bill is durable before the client's first byte, and an upstream that stalls or cuts after the finish
 * still ends it as a failure the client is told of, billed for the words it got.
 */

/** How the upstream ends the stream it writes at once (head, role, words and finish in one write): whole, or not. */
let ending: 'whole' | 'stall' | 'cut' | 'late-stall' | 'endless' = 'whole'
let upstream: TCPSocketListener<{ received: string; closed?: boolean }>
let gateway: TestGateway
const usage = { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 }
const databasePath = join(mkdtempSync(join(tmpdir(), 'tollgate-short-streams-')), 'tollgate.db')
// $1 and $2 per 1M tokens: 1000 and 2000 nano-dollars per token.
const price = { input: 1, output: 2 }
/** What the gateway holds unsent before an answer begins or after its finish (limits.upstream_body_bytes). */
const heldCap = 64 * 1024
const config = () => ({
  limits: { upstream_body_bytes: heldCap },
  // Most of these streams fail on purpose: the route must not trip and turn the next ones away.
  routing: { max_attempts: 1, failure_ratio: 1, min_requests: 100 },
  providers: [{ name: 'up', type: 'openai', base_url: `http://127.0.0.1:${upstream.port}/v1`, timeouts: { idle_ms: 300 } }],
  models: [{ id: 'short', provider: 'up', upstream_model: 'u', price }],
})

function chunked(event: string): string {
  return `${Buffer.byteLength(event).toString(16)}\r\n${event}\r\n`
}

/**
 * A Chat Completions stream of `text` as one chunk of its body, written at once with the head, as a fast upstream
 * sends a short answer: role, words and finish, then the usage report and `[DONE]` unless it stalls or cuts there.
 */
const base = { id: 'chatcmpl-short', object: 'chat.completion.chunk', created: 1700000000, model: 'u' }
const event = (fields: object) => `data: ${JSON.stringify({ ...base, ...fields })}\n\n`
const choice = (delta: object, finish: string | null = null) => event({ choices: [{ index: 0, delta, finish_reason: finish }] })
const stop = choice({}, 'stop')
const head = 'HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n'

function answer(text: string): string {
  let events = choice({ role: 'assistant', content: '' })
  for (const word of text.split(/(?= )/)) events += choice({ content: word })
  events += stop
  if (ending !== 'whole') return head + chunked(events)
  return `${head}${chunked(`${events}${event({ choices: [], usage })}data: [DONE]\n\n`)}0\r\n\r\n`
}

beforeAll(async () => {
  upstream = Bun.listen<{ received: string; closed?: boolean }>({
    hostname: '127.0.0.1',
    port: 0,
    socket: {
      open: (socket) => void (socket.data = { received: '' }),
      close: (socket) => void (socket.data.closed = true),
      data(socket, chunk) {
        socket.data.received += chunk.toString()
        const end = socket.data.received.indexOf('\r\n\r\n')
        const length = Number(/content-length:\s*(\d+)/i.exec(socket.data.received)?.[1] ?? -1)
        if (end === -1 || socket.data.received.length < end + 4 + length) return
        const { messages } = JSON.parse(socket.data.received.slice(end + 4)) as { messages: { content: string }[] }
        socket.data.received = ''
        const text = messages[0]!.content
        if (ending === 'late-stall') {
          // The answer begins with its first word; the rest and the finish come a moment later, then silence.
          const [first, ...rest] = text.split(/(?= )/)
          socket.write(head + chunked(choice({ role: 'assistant', content: '' }) + choice({ content: first })))
          setTimeout(() => socket.write(chunked(rest.map((word) => choice({ content: word })).join('') + stop)), 30)
          return
        }
        socket.write(answer(text))
        if (ending === 'cut') socket.end() // no final chunk: a broken body
        if (ending === 'endless') {
          // After the finish, events without end (none of them the usage report or [DONE]), 16 KB a millisecond.
          const more = chunked(event({ choices: [] }).repeat(160))
          const pump = () => {
            if (socket.data.closed) return
            socket.write(more)
            setTimeout(pump, 1)
          }
          pump()
        }
      },
    },
  })
  gateway = await startTestGateway({ databasePath, config: config() })
})

afterAll(async () => {
  await gateway.stop()
  upstream.stop(true)
})

/** A key that may run one request at a time: a permit not given back refuses its next request (429). */
async function freshKey() {
  const { secret, record } = await gateway.createKey({ concurrency: 1 })
  return { secret, keyId: record.id }
}

/**
 * However the stream ended: the account paid exactly its bill, no money is left held, no request is left running,
 * and the key's one concurrency permit is free again (a whole short stream on it is answered).
 */
async function expectReleased(secret: string, balanceBefore: number, cost: number): Promise<void> {
  const account = await gateway.settled()
  expect(balanceBefore - account.balance).toBe(cost)
  expect(account.reserved).toBe(0)
  expect(gateway.gateway.services.relay.inFlight).toBe(0)
  ending = 'whole'
  const next = await fetch(`${gateway.baseUrl}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'short', stream: true, messages: [{ role: 'user', content: 'Again' }] }),
  })
  expect(next.status).toBe(200)
  expect(await next.text()).toContain('data: [DONE]')
}

const settledRows = (keyId: string) => settledRowsOf(gateway, databasePath, keyId)

/**
 * A stream of 'Rivers carve valleys' whose upstream ends it `how`, past its finish: the client gets all three words and
 * then an error, and the request is billed as failed, for an estimate of those words.
 */
async function expectFailedButDelivered(how: typeof ending): Promise<void> {
  ending = how
  const { secret, keyId } = await freshKey()
  const balanceBefore = (await gateway.settled()).balance
  const client = new OpenAI({ baseURL: gateway.baseUrl, apiKey: secret, maxRetries: 0 })
  let text = ''
  const error = await (async () => {
    const stream = await client.chat.completions.create({
      model: 'short',
      stream: true,
      messages: [{ role: 'user', content: 'Rivers carve valleys' }],
    })
    for await (const part of stream) text += part.choices[0]?.delta?.content ?? ''
  })().catch((caught) => caught)
  expect(error).toBeInstanceOf(Error)
  expect(text).toBe('Rivers carve valleys')
  const [row] = await settledRows(keyId)
  expect(row!.status).toBeGreaterThanOrEqual(500)
  expect(row!.estimated).toBe(1)
  expect(row!.output_tokens).toBeGreaterThan(0)
  expect(row!.cost).toBe(row!.input_tokens * 1000 + row!.output_tokens * 2000)
  await expectReleased(secret, balanceBefore, row!.cost)
}

/** A streamed Chat Completions request as its bytes, closing the connection after its answer. */
function rawRequest(secret: string, content: string): string {
  const body = JSON.stringify({ model: 'short', stream: true, messages: [{ role: 'user', content }] })
  return `POST /v1/chat/completions HTTP/1.1\r\nhost: ${new URL(gateway.baseUrl).host}\r\nauthorization: Bearer ${secret}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`
}

/**
 * The response as a client in a process of its own reads it (test/support/first-read.ts): its first read, the whole
 * response, and how many usage rows the key had in the file when that first read came.
 */
async function readApart(secret: string, keyId: string, content: string) {
  const script = join(import.meta.dir, 'support/first-read.ts')
  const child = Bun.spawn(['bun', script, gateway.baseUrl, rawRequest(secret, content), databasePath, keyId], { stdout: 'pipe' })
  return JSON.parse(await new Response(child.stdout).text()) as { first: string; whole: string; rowsAtFirst: number }
}

describe('a stream whose finish came with its beginning', () => {
  test('is billed before its first byte, and reaches the client in one write: its head does not go ahead', async () => {
    ending = 'whole'
    const { secret, keyId } = await freshKey()
    const { first, whole, rowsAtFirst } = await readApart(secret, keyId, 'Short and sweet')
    expect(whole).toStartWith('HTTP/1.1 200')
    expect(whole).toContain('"content":" sweet"')
    expect(whole).toContain('data: [DONE]')
    // One write: the first read already holds the head, the text and the stream's end.
    expect(first).toBe(whole)
    // The bill was durable before any of it reached the client.
    expect(rowsAtFirst).toBe(1)
    const [row] = await settledRows(keyId)
    expect(row).toMatchObject({ status: 200, estimated: 0 })
  })

  test('reads through the SDK as before, billed from the upstream report', async () => {
    ending = 'whole'
    const { secret, keyId } = await freshKey()
    const balanceBefore = (await gateway.settled()).balance
    const client = new OpenAI({ baseURL: gateway.baseUrl, apiKey: secret, maxRetries: 0 })
    let text = ''
    let usage: unknown
    const stream = await client.chat.completions.create({
      model: 'short',
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'Short and sweet' }],
    })
    for await (const part of stream) {
      text += part.choices[0]?.delta?.content ?? ''
      usage = part.usage ?? usage
    }
    expect(text).toBe('Short and sweet')
    expect(usage).toMatchObject({ prompt_tokens: 11, completion_tokens: 7 })
    const [row] = await settledRows(keyId)
    expect(row).toMatchObject({ status: 200, output_tokens: 7, cost: 11 * 1000 + 7 * 2000, estimated: 0 })
    await expectReleased(secret, balanceBefore, row!.cost)
  })

  test('a longer stream whose upstream stalls after its finish gives the client the held words it is billed for', async () => {
    // Not one of these short streams: its first word goes out at once; the rest and the finish come in a later read,
    // held back for the bill, and then the upstream falls silent past idle_ms.
    await expectFailedButDelivered('late-stall')
  })

  test('an upstream that sends without end after its finish is cut at upstream_body_bytes, billed for the words', async () => {
    // What is held back for the bill from the finish on is bounded as what a stream sends before its answer begins.
    await expectFailedButDelivered('endless')
  })

  for (const how of ['stall', 'cut'] as const) {
    test(`an upstream that ${how}s after the finish fails it, billed for the words the client got`, async () => {
      // Role, three words and the finish at once, then no usage report and no end: silence past idle_ms, or a cut.
      await expectFailedButDelivered(how)
    })
  }
})
