import { afterAll, beforeAll, expect, test } from 'bun:test'
import { join } from 'node:path'
import OpenAI from 'openai'
import { makeWorkspace, runCli, startServe } from './support/cli.ts'
import { startHttpsServer, type TlsFixture, tlsFixtures } from './support/tls-fixtures.ts'

/**
 * `https://` upstreams — every public API — go over Tollgate's own client too (providers/http1-client.ts), trusting
 * what fetch trusts: the runtime's roots and NODE_EXTRA_CA_CERTS, given here as `serve` is started. A stream and a
 * whole answer read and bill the same over it as over fetch; an upstream whose certificate is for another host is
 * never sent the request, and the client is told 503 and not billed. The upstream tells the clients apart by fetch's
 * User-Agent.
 */
const agents: Record<string, string | null> = {}
let wrongHostAsked = 0

const chunk = (body: object) =>
  `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'up', ...body })}\n\n`
const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 }
function httpsUpstream(name: TlsFixture) {
  return startHttpsServer(name, async (request) => {
    if (name === 'elsewhere') wrongHostAsked++
    const body = (await request.json()) as { model: string; stream?: boolean }
    agents[body.model] = request.headers.get('user-agent')
    if (!body.stream) {
      const message = { role: 'assistant', content: 'hello there' }
      return Response.json({
        id: 'c1',
        object: 'chat.completion',
        created: 1,
        model: 'up',
        choices: [{ index: 0, message, finish_reason: 'stop' }],
        usage,
      })
    }
    const events = [
      chunk({ choices: [{ index: 0, delta: { role: 'assistant', content: 'hello ' }, finish_reason: null }] }),
      chunk({ choices: [{ index: 0, delta: { content: 'there' }, finish_reason: 'stop' }] }),
      chunk({ choices: [], usage }),
      'data: [DONE]\n\n',
    ]
    return new Response(events.join(''), { headers: { 'content-type': 'text/event-stream' } })
  })
}
const trusted = httpsUpstream('loopback')
const elsewhere = httpsUpstream('elsewhere')

const cli = ['bun', 'src/main.ts']
const price = '{ input: 1000, output: 2000 }' // $0.02 a request of 10 + 5 tokens
const { config } = makeWorkspace(`providers:
  - { name: own, type: openai, base_url: "https://127.0.0.1:${trusted.port}/v1" }
  - { name: fetched, type: openai, base_url: "https://127.0.0.1:${trusted.port}/v1", client: fetch }
  - { name: wrong-host, type: openai, base_url: "https://127.0.0.1:${elsewhere.port}/v1" }
models:
  - { id: via-own, provider: own, upstream_model: own, price: ${price} }
  - { id: via-fetch, provider: fetched, upstream_model: fetched, price: ${price} }
  - { id: via-wrong-host, provider: wrong-host, upstream_model: wrong, price: ${price} }
`)
const run = (...args: string[]) => runCli(cli, [...args, '--config', config])
const balance = () => run('account', 'show', 'acme', '--json').json().balance_usd as string
let server: Awaited<ReturnType<typeof startServe>>
let client: OpenAI

beforeAll(async () => {
  expect(run('migrate').code).toBe(0)
  expect(run('account', 'create', 'acme', '--balance', '10').code).toBe(0)
  const key = run('key', 'create', '--account', 'acme', '--json').json().key as string
  server = await startServe(cli, config, { env: { ...process.env, NODE_EXTRA_CA_CERTS: join(tlsFixtures, 'loopback-cert.pem') } })
  client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: key, maxRetries: 0 })
}, 30_000)
afterAll(async () => {
  server?.process.kill('SIGTERM')
  await server?.process.exited
  trusted.stop(true)
  elsewhere.stop(true)
})

test('over https, a whole answer and a stream read and bill the same on the own client as on fetch', async () => {
  for (const model of ['via-own', 'via-fetch']) {
    const whole = await client.chat.completions.create({ model, messages: [{ role: 'user', content: 'hi' }] })
    expect(whole.choices[0]!.message.content).toBe('hello there')
    const stream = await client.chat.completions.create({ model, stream: true, messages: [{ role: 'user', content: 'hi' }] })
    let text = ''
    for await (const part of stream) text += part.choices[0]?.delta?.content ?? ''
    expect(text).toBe('hello there')
  }
  expect(agents.own).toBeNull() // the own client sends no User-Agent of its own
  expect(agents.fetched).toContain('Bun')
  expect(balance()).toBe('9.92') // four requests at $0.02, two on each client
}, 30_000)

test('an upstream whose certificate names another host is never sent the request: a 503, not billed', async () => {
  const before = balance()
  const error = await client.chat.completions
    .create({ model: 'via-wrong-host', messages: [{ role: 'user', content: 'hi' }] })
    .catch((failure: unknown) => failure)
  expect(error).toBeInstanceOf(OpenAI.APIError)
  expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(503)
  expect(wrongHostAsked).toBe(0)
  expect(balance()).toBe(before)
  expect(server.output()).not.toContain('unexpected error')
}, 30_000)
