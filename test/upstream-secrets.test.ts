import { afterAll, beforeAll, expect, test } from 'bun:test'
import Anthropic from '@anthropic-ai/sdk'
import { GoogleGenAI } from '@google/genai'
import OpenAI from 'openai'
import type { Logger } from '../src/core/logger.ts'
import { startTestGateway, type TestGateway } from './support/gateway.ts'
import { jsonReply, startUpstream, type TestUpstream } from './support/upstream.ts'

/**
 * Upstream error text reaches clients and logs only capped and scrubbed of credentials: an upstream 401 once handed
 * the client a piece of the operator's own upstream key.
 */
const openaiKey = 'sk-proj-OPERATORsecret0123456789abcdefXYZ'
const anthropicKey = 'sk-ant-api03-OPERATORsecret0123456789abcdef'
const geminiKey = 'AIzaSyOPERATORsecret0123456789abcdefghij'
const proxyKey = 'plainOPERATORsecret0123456789'
const secrets = [openaiKey, anthropicKey, geminiKey, proxyKey]
/**
 * Pieces an upstream might quote: the middle of each key, as a masked "Incorrect API key provided: …" shows it, and
 * its last six characters after asterisks (`****abc123`), as a console listing keys does.
 */
const pieces = [...secrets.map((secret) => secret.slice(8, 24)), ...secrets.map((secret) => secret.slice(-6))]

let upstream: TestUpstream
let gateway: TestGateway
const logged: string[] = []
const logger: Logger = {
  info: (fields, message) => logged.push(JSON.stringify({ message, ...fields })),
  warn: (fields, message) => logged.push(JSON.stringify({ message, ...fields })),
  error: (fields, message) => logged.push(JSON.stringify({ message, ...fields })),
}

beforeAll(async () => {
  // A loopback upstream that refuses every key and quotes what it got, the way a careless proxy does.
  upstream = startUpstream((request) => {
    const got = request.headers.authorization ?? request.headers['x-api-key'] ?? request.headers['x-goog-api-key'] ?? ''
    const bare = got.replace(/^Bearer /, '')
    const message = `Incorrect API key provided: ${got}. Key ${bare.slice(0, 4)}…${bare.slice(8, 24)}… is not valid. (${bare}) Keys on file: ****${bare.slice(-6)}.`
    if (request.path.includes('huge')) return jsonReply({ error: { message: 'x'.repeat(50_000), type: 'server_error' } }, 500)
    if (request.headers['x-goog-api-key']) return jsonReply({ error: { code: 401, message, status: 'UNAUTHENTICATED' } }, 401)
    if (request.headers['x-api-key']) return jsonReply({ type: 'error', error: { type: 'authentication_error', message } }, 401)
    return jsonReply({ error: { message, type: 'invalid_request_error', code: 'invalid_api_key' } }, 401)
  })
  const price = { input: 1, output: 2 }
  gateway = await startTestGateway({
    logger,
    config: {
      routing: { max_attempts: 1, min_requests: 1000 }, // every request reaches the upstream: no route is ever tripped
      providers: [
        { name: 'openai', type: 'openai', base_url: `${upstream.url}/v1`, api_key: openaiKey },
        { name: 'anthropic', type: 'anthropic', base_url: upstream.url, api_key: anthropicKey },
        { name: 'gemini', type: 'gemini', base_url: upstream.url, api_key: geminiKey },
        { name: 'proxy', type: 'openai', base_url: `${upstream.url}/v1`, api_key: proxyKey },
        { name: 'huge', type: 'openai', base_url: `${upstream.url}/huge/v1`, api_key: proxyKey },
      ],
      models: [
        { id: 'gpt', provider: 'openai', price },
        { id: 'claude', provider: 'anthropic', price },
        { id: 'gem', provider: 'gemini', price },
        { id: 'proxied', provider: 'proxy', price },
        { id: 'huge', provider: 'huge', price },
      ],
    },
  })
})

afterAll(async () => {
  await gateway.stop()
  await upstream.stop()
})

function expectNoSecret(text: string) {
  for (const secret of [...secrets, ...pieces]) expect(text).not.toContain(secret)
}

/** What a stream's client saw: its text and the error it ended with, or the error that refused it. */
async function streamed(stream: () => Promise<AsyncIterable<unknown>>): Promise<string> {
  try {
    const chunks: unknown[] = []
    for await (const chunk of await stream()) chunks.push(chunk)
    return `answered ${JSON.stringify(chunks)}`
  } catch (error: any) {
    return `${error.status ?? 'ended'} ${JSON.stringify(error.error ?? null)} ${error.message}`
  }
}

// ISSUE 22: the client got the upstream's text (with the key's last characters after asterisks); it is the operator's
// problem, so the client gets a fixed 502 and the upstream's text, scrubbed, goes to the log alone.
test("an upstream 401 quoting the gateway's key: every client gets a fixed 502, whole or streamed; only the log has the upstream's text, scrubbed", async () => {
  const openai = new OpenAI({ baseURL: gateway.baseUrl, apiKey: gateway.key, maxRetries: 0 })
  const anthropic = new Anthropic({ baseURL: gateway.url, apiKey: gateway.key, maxRetries: 0 })
  const gemini = new GoogleGenAI({ apiKey: gateway.key, httpOptions: { baseUrl: gateway.url } })
  const failures: string[] = []
  const messages = [{ role: 'user' as const, content: 'hi' }]
  for (const model of ['gpt', 'claude', 'gem', 'proxied']) {
    // Each model from each client protocol, whole and streamed: passthrough and translated paths both.
    failures.push(
      await openai.chat.completions.create({ model, messages }).then(
        () => 'answered',
        (error) => `${error.status} ${JSON.stringify(error.error)}`,
      ),
    )
    failures.push(
      await anthropic.messages.create({ model, max_tokens: 5, messages }).then(
        () => 'answered',
        (error) => `${error.status} ${JSON.stringify(error.error)}`,
      ),
    )
    failures.push(
      await gemini.models.generateContent({ model, contents: 'hi' }).then(
        () => 'answered',
        (error) => `${error.status} ${error.message}`,
      ),
    )
    failures.push(
      await openai.responses.create({ model, input: 'hi' }).then(
        () => 'answered',
        (error) => `${error.status} ${JSON.stringify(error.error)}`,
      ),
    )
    failures.push(await streamed(() => openai.chat.completions.create({ model, messages, stream: true })))
    failures.push(await streamed(() => anthropic.messages.create({ model, max_tokens: 5, messages, stream: true })))
    failures.push(await streamed(() => gemini.models.generateContentStream({ model, contents: 'hi' })))
    failures.push(await streamed(() => openai.responses.create({ model, input: 'hi', stream: true })))
  }
  expect(upstream.requests.length).toBe(32)
  for (const failure of failures) {
    expect(failure).toStartWith('502 ')
    expect(failure).toContain("The upstream refused the gateway's credentials")
    expect(failure).not.toContain('Incorrect API key provided')
    expectNoSecret(failure)
  }
  // Each failed attempt's line keeps what the upstream said, for the operator.
  const details = logged.map((line) => JSON.parse(line).detail as string | undefined).filter((detail) => detail !== undefined)
  expect(details.length).toBe(32)
  for (const detail of details) expect(detail).toStartWith('upstream HTTP 401: Incorrect API key provided')
  for (const line of logged) expectNoSecret(line)
})

test('upstream error text is cut to about 1 KB', async () => {
  const openai = new OpenAI({ baseURL: gateway.baseUrl, apiKey: gateway.key, maxRetries: 0 })
  const error = await openai.chat.completions
    .create({ model: 'huge', messages: [{ role: 'user', content: 'hi' }] })
    .catch((failure) => failure)
  expect(error.status).toBe(502)
  expect(error.message.length).toBeLessThan(1200)
  expect(error.message).toContain('(cut)')
})
