import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import Anthropic from '@anthropic-ai/sdk'
import { ApiError, GoogleGenAI } from '@google/genai'
import OpenAI from 'openai'
import type { Logger } from '../src/core/logger.ts'
import { systemActor } from '../src/domain/actor.ts'
import { mockConfig, startTestGateway, type TestGateway } from './support/gateway.ts'

/**
 * A key's `allowed_ips` through each vendor's SDK. The gateway trusts the loopback proxy, so each client says where it
 * is with X-Forwarded-For, as a load balancer in front of the gateway would.
 */
let gateway: TestGateway
let secret: string
let keyId: string
const logs: { message: string; fields: Record<string, unknown> }[] = []
const logger: Logger = {
  info: (fields, message) => logs.push({ message, fields }),
  warn: (fields, message) => logs.push({ message, fields }),
  error: (fields, message) => logs.push({ message, fields }),
}

beforeAll(async () => {
  gateway = await startTestGateway({ logger, config: { ...mockConfig, trusted_proxies: ['127.0.0.1/32', '::1'] } })
  const created = await gateway.gateway.services.keyService.create(
    {
      accountId: gateway.account.id,
      name: 'office only',
      allowedIps: ['203.0.113.0/24', '2001:db8:1::/48', '198.51.100.7'],
    },
    systemActor('test'),
  )
  secret = created.secret
  keyId = created.record.id
})
afterAll(() => gateway.stop())

const from = (address: string) => ({ 'x-forwarded-for': address })

const openai = (address: string) => new OpenAI({ baseURL: gateway.baseUrl, apiKey: secret, maxRetries: 0, defaultHeaders: from(address) })
const anthropic = (address: string) => new Anthropic({ baseURL: gateway.url, apiKey: secret, maxRetries: 0, defaultHeaders: from(address) })
const gemini = (address: string) => new GoogleGenAI({ apiKey: secret, httpOptions: { baseUrl: gateway.url, headers: from(address) } })

const chat = (address: string) =>
  openai(address).chat.completions.create({ model: 'mock-1', messages: [{ role: 'user', content: 'hi' }], max_tokens: 5 })
const message = (address: string) =>
  anthropic(address).messages.create({ model: 'mock-1', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] })
const generate = (address: string) => gemini(address).models.generateContent({ model: 'mock-1', contents: 'hi' })

async function refusal(call: () => Promise<unknown>): Promise<{ status: number; body: string }> {
  try {
    await call()
  } catch (error) {
    if (error instanceof OpenAI.APIError || error instanceof Anthropic.APIError)
      return { status: error.status!, body: JSON.stringify(error.error) }
    if (error instanceof ApiError) return { status: error.status, body: error.message }
    throw error
  }
  throw new Error('expected a refusal')
}

describe('allowed_ips', () => {
  test('an address inside a block, a listed address and an IPv6 block are let in, through every SDK', async () => {
    expect((await chat('203.0.113.44')).choices[0]!.message.content).toBeString()
    expect((await message('2001:db8:1:ff::9')).content.length).toBeGreaterThan(0)
    expect((await generate('198.51.100.7')).text).toBeString()
    // An IPv4 client reported in its IPv6-mapped form is the same client.
    expect((await chat('::ffff:203.0.113.9')).choices).toHaveLength(1)
  })

  test('any other address gets a 403 in its protocol shape that names nothing about the key', async () => {
    const openaiRefusal = await refusal(() => chat('198.51.100.8'))
    const anthropicRefusal = await refusal(() => message('2001:db8:2::1'))
    const geminiRefusal = await refusal(() => generate('10.1.2.3'))
    expect(openaiRefusal.status).toBe(403)
    expect(JSON.parse(openaiRefusal.body)).toMatchObject({ code: 'address_not_allowed', type: expect.any(String) })
    expect(anthropicRefusal.status).toBe(403)
    expect(JSON.parse(anthropicRefusal.body)).toMatchObject({ type: 'error', error: { type: 'permission_error' } })
    expect(geminiRefusal.status).toBe(403)
    expect(geminiRefusal.body).toContain('PERMISSION_DENIED')
    for (const { body } of [openaiRefusal, anthropicRefusal, geminiRefusal]) {
      expect(body).toContain('Requests from this address are not allowed.')
      for (const secretPart of [keyId, secret.slice(0, 11), 'office', '203.0.113', '2001:db8:1', 'allowed_ips', 'key'])
        expect(body).not.toContain(secretPart)
    }
    // The operator's log says which key was tried from where, and never the secret.
    const refused = logs.filter((line) => line.fields.error === 'address_not_allowed')
    expect(refused.map((line) => [line.fields.status, line.fields.client, line.fields.detail])).toEqual([
      [403, '198.51.100.8', `key ${keyId}`],
      [403, '2001:db8:2::1', `key ${keyId}`],
      [403, '10.1.2.3', `key ${keyId}`],
    ])
    expect(JSON.stringify(logs)).not.toContain(secret)
  })

  test('the address is the one the trusted proxy reports: a forged hop in front of it changes nothing', async () => {
    // The client wrote 203.0.113.5 itself; the proxy appended the address it saw (10.9.9.9), which is what counts.
    const refused = await refusal(() =>
      openai('203.0.113.5, 10.9.9.9').chat.completions.create({ model: 'mock-1', messages: [{ role: 'user', content: 'hi' }] }),
    )
    expect(refused.status).toBe(403)
    // A peer that is not a trusted proxy is judged by its own address, whatever header it sends.
    const direct = await startTestGateway({ config: mockConfig })
    try {
      const key = await direct.gateway.services.keyService.create(
        { accountId: direct.account.id, allowedIps: ['203.0.113.0/24'] },
        systemActor('test'),
      )
      const response = await fetch(`${direct.baseUrl}/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key.secret}`, 'content-type': 'application/json', ...from('203.0.113.1') },
        body: JSON.stringify({ model: 'mock-1', messages: [{ role: 'user', content: 'hi' }] }),
      })
      expect(response.status).toBe(403)
      const loopback = await direct.gateway.services.keyService.edit(
        key.record.id,
        { allowedIps: ['127.0.0.0/8', '::1'] },
        systemActor('test'),
      )
      expect(loopback.allowedIps).toEqual(['127.0.0.0/8', '::1'])
      const allowed = await new OpenAI({ baseURL: direct.baseUrl, apiKey: key.secret, maxRetries: 0 }).chat.completions.create({
        model: 'mock-1',
        messages: [{ role: 'user', content: 'hi' }],
      })
      expect(allowed.choices).toHaveLength(1)
    } finally {
      await direct.stop()
    }
  })

  test('a key without rules is usable from anywhere, and clearing the rule opens the key at once', async () => {
    const open = await gateway.createKey()
    const client = new OpenAI({ baseURL: gateway.baseUrl, apiKey: open.secret, maxRetries: 0, defaultHeaders: from('192.0.2.1') })
    expect((await client.chat.completions.create({ model: 'mock-1', messages: [{ role: 'user', content: 'hi' }] })).choices).toHaveLength(1)
    const ruled = await gateway.gateway.services.keyService.create(
      { accountId: gateway.account.id, allowedIps: ['192.0.2.0/25'] },
      systemActor('test'),
    )
    const outside = () =>
      new OpenAI({
        baseURL: gateway.baseUrl,
        apiKey: ruled.secret,
        maxRetries: 0,
        defaultHeaders: from('192.0.2.200'),
      }).chat.completions.create({ model: 'mock-1', messages: [{ role: 'user', content: 'hi' }] })
    expect((await refusal(outside)).status).toBe(403)
    await gateway.gateway.services.keyService.edit(ruled.record.id, { allowedIps: null }, systemActor('test'))
    expect((await outside()).choices).toHaveLength(1)
  })
})
