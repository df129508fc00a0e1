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
/** Pieces an upstream might quote: the middle of each key, as a masked "Incorrect API key provided: …" shows it. */
const pieces = secrets.map((secret) => secret.slice(8, 24))

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
    const message = `Incorrect API key provided: ${got}. Key ${bare.slice(0, 4)}…${bare.slice(8, 24)}… is not valid. (${bare})`
    if (request.path.includes('huge')) return jsonReply({ error: { message: 'x'.repeat(50_000), type: 'server_error' } }, 500)
    if (request.headers['x-goog-api-key']) return jsonReply({ error: { code: 401, message, status: 'UNAUTHENTICATED' } }, 401)
    if (request.headers['x-api-key']) return jsonReply({ type: 'error', error: { type: 'authentication_error', message } }, 401)
    return jsonReply({ error: { message, type: 'invalid_request_error', code: 'invalid_api_key' } }, 401)
  })
  const price = { input: 1, output: 2 }
  gateway = await startTestGateway({
    logger,
    config: {
      routing: { max_attempts: 1 },
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

test('an upstream 401 quoting the gateway\'s key reaches no client and no log line', async () => {
  const openai = new OpenAI({ baseURL: gateway.baseUrl, apiKey: gateway.key, maxRetries: 0 })
  const anthropic = new Anthropic({ baseURL: gateway.url, apiKey: gateway.key, maxRetries: 0 })
  const gemini = new GoogleGenAI({ apiKey: gateway.key, httpOptions: { baseUrl: gateway.url } })
  const failures: string[] = []
  for (const model of ['gpt', 'claude', 'gem', 'proxied']) {
    // Each model from each client protocol: passthrough and translated paths both.
    failures.push(await openai.chat.completions.create({ model, messages: [{ role: 'user', content: 'hi' }] }).then(() => 'answered', (error) => `${error.status} ${JSON.stringify(error.error)}`))
    failures.push(await anthropic.messages.create({ model, max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] }).then(() => 'answered', (error) => `${error.status} ${JSON.stringify(error.error)}`))
    failures.push(await gemini.models.generateContent({ model, contents: 'hi' }).then(() => 'answered', (error) => `${error.status} ${error.message}`))
  }
  expect(upstream.requests.length).toBe(12)
  for (const failure of failures) {
    expect(failure).toStartWith('502 ')
    expect(failure).toContain('Incorrect API key provided')
    expectNoSecret(failure)
  }
  expect(logged.some((line) => line.includes('Incorrect API key provided'))).toBe(true)
  for (const line of logged) expectNoSecret(line)
})

test('upstream error text is cut to about 1 KB', async () => {
  const openai = new OpenAI({ baseURL: gateway.baseUrl, apiKey: gateway.key, maxRetries: 0 })
  const error = await openai.chat.completions.create({ model: 'huge', messages: [{ role: 'user', content: 'hi' }] }).catch((failure) => failure)
  expect(error.status).toBe(502)
  expect(error.message.length).toBeLessThan(1200)
  expect(error.message).toContain('(cut)')
})
