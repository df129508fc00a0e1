import { afterAll, beforeAll, expect, test } from 'bun:test'
import Anthropic from '@anthropic-ai/sdk'
import OpenAI from 'openai'
import { startTestGateway, type TestGateway } from './support/gateway.ts'

/** A body over the gateway's limit is refused in the caller's own error shape, never with Bun's empty 413. */
let gateway: TestGateway

beforeAll(async () => {
  gateway = await startTestGateway()
})

afterAll(() => gateway.stop())

const huge = 'x'.repeat(40 * 1024 * 1024)

test('an OpenAI client sending 40 MB gets a 413 it can read', async () => {
  const client = new OpenAI({ baseURL: gateway.baseUrl, apiKey: gateway.key, maxRetries: 0 })
  const error = await client.chat.completions
    .create({ model: 'mock-1', messages: [{ role: 'user', content: huge }] })
    .catch((failure) => failure)
  expect(error.status).toBe(413)
  expect(error.error).toMatchObject({ code: 'request_too_large' })
  expect(error.message).toContain(`at most ${32 * 1024 * 1024} bytes`)
})

test('an Anthropic client sending 40 MB gets a 413 in the Anthropic shape', async () => {
  const client = new Anthropic({ baseURL: gateway.url, apiKey: gateway.key, maxRetries: 0 })
  const error = await client.messages
    .create({ model: 'mock-1', max_tokens: 5, messages: [{ role: 'user', content: huge }] })
    .catch((failure) => failure)
  expect(error.status).toBe(413)
  expect(error.error).toMatchObject({ type: 'error', error: { type: 'request_too_large' } })
})

test('a body sent without a length is held to the same limit', async () => {
  const bytes = new TextEncoder().encode(JSON.stringify({ model: 'mock-1', messages: [{ role: 'user', content: huge }] }))
  const body = new ReadableStream({
    start(controller) {
      for (let at = 0; at < bytes.length; at += 1 << 20) controller.enqueue(bytes.subarray(at, at + (1 << 20)))
      controller.close()
    },
  })
  const response = await fetch(`${gateway.baseUrl}/chat/completions`, {
    method: 'POST',
    body,
    headers: { authorization: `Bearer ${gateway.key}` },
  })
  expect(response.status).toBe(413)
  expect((await response.json()).error.code).toBe('request_too_large')
})
