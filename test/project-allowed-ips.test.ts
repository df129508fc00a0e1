import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import Anthropic from '@anthropic-ai/sdk'
import OpenAI from 'openai'
import { createAdminToken } from '../src/domain/admin-tokens.ts'
import { systemActor } from '../src/domain/actor.ts'
import { auditRowsOf } from './support/audit.ts'
import { mockConfig, startTestGateway, type TestGateway } from './support/gateway.ts'

/**
 * A project's `allowed_ips` with its keys' own: an address must pass every list that applies (the narrower wins).
 * The gateway trusts the loopback proxy, so each client says where it is with X-Forwarded-For (as allowed-ips.test.ts).
 */
let gateway: TestGateway
let token: string
let projectId: number
/** In the project, with no list of its own: the project's list alone applies. */
let open: string
/** In the project, with a list of its own that reaches past the project's: only what both allow. */
let narrow: string

const actor = systemActor('test')

beforeAll(async () => {
  gateway = await startTestGateway({ config: { ...mockConfig, trusted_proxies: ['127.0.0.1/32', '::1'] } })
  token = (await createAdminToken(gateway.gateway.services.store.adminTokens, 'rules', 'full')).secret
  const { budgetService, keyService } = gateway.gateway.services
  const project = await budgetService.createProject(
    { accountId: gateway.account.id, name: 'office', allowedIps: ['203.0.113.0/24', '2001:db8:1::/48'] },
    actor,
  )
  projectId = project.id
  open = (await keyService.create({ accountId: gateway.account.id, name: 'open', projectId }, actor)).secret
  narrow = (
    await keyService.create(
      { accountId: gateway.account.id, name: 'narrow', projectId, allowedIps: ['203.0.113.7', '198.51.100.0/24'] },
      actor,
    )
  ).secret
})
afterAll(() => gateway.stop())

const from = (address: string) => ({ 'x-forwarded-for': address })
const chat = (secret: string, address: string) =>
  new OpenAI({ baseURL: gateway.baseUrl, apiKey: secret, maxRetries: 0, defaultHeaders: from(address) }).chat.completions.create({
    model: 'mock-1',
    messages: [{ role: 'user', content: 'hi' }],
    max_tokens: 5,
  })
const message = (secret: string, address: string) =>
  new Anthropic({ baseURL: gateway.url, apiKey: secret, maxRetries: 0, defaultHeaders: from(address) }).messages.create({
    model: 'mock-1',
    max_tokens: 5,
    messages: [{ role: 'user', content: 'hi' }],
  })

/** The HTTP status a call ends with: 200 when answered, the SDK's error status when refused. */
async function statusOf(call: Promise<unknown>): Promise<number> {
  try {
    await call
    return 200
  } catch (error) {
    if (error instanceof OpenAI.APIError || error instanceof Anthropic.APIError) {
      if (error.status === 403) expect(JSON.stringify(error.error)).toContain('Requests from this address are not allowed.')
      return error.status!
    }
    throw error
  }
}

async function admin(method: string, path: string, body?: unknown) {
  const response = await fetch(`${gateway.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  return { status: response.status, body: (await response.json()) as Record<string, any> }
}

describe("a project's allowed_ips", () => {
  test("a key without a list of its own is held to its project's", async () => {
    expect(await statusOf(chat(open, '203.0.113.44'))).toBe(200)
    expect(await statusOf(message(open, '2001:db8:1:ff::9'))).toBe(200)
    expect(await statusOf(chat(open, '198.51.100.9'))).toBe(403)
    expect(await statusOf(message(open, '10.1.2.3'))).toBe(403)
  })

  test('a key with its own list is let in only where both lists allow', async () => {
    expect(await statusOf(chat(narrow, '203.0.113.7'))).toBe(200) // in both
    expect(await statusOf(message(narrow, '203.0.113.8'))).toBe(403) // the project's, not the key's
    expect(await statusOf(chat(narrow, '198.51.100.9'))).toBe(403) // the key's, not the project's: the key cannot widen it
  })

  test('GET /v1/key shows the rules that apply to the key', async () => {
    const response = await fetch(`${gateway.baseUrl}/key`, { headers: { authorization: `Bearer ${narrow}`, ...from('203.0.113.7') } })
    const view = (await response.json()) as { limits: { allowed_ips: string[] | null; project: { allowed_ips: string[] | null } } }
    expect(view.limits.allowed_ips).toEqual(['203.0.113.7', '198.51.100.0/24'])
    expect(view.limits.project.allowed_ips).toEqual(['203.0.113.0/24', '2001:db8:1::/48'])
  })

  test('set through the admin API with one audit row, counting from the next request; a bad entry is refused', async () => {
    const bad = await admin('PATCH', `/admin/api/projects/${projectId}`, { allowed_ips: ['10.0.0.0/8', '10.0.0.300'] })
    expect(bad.status).toBe(400)
    expect(bad.body.error.message).toContain('allowed_ips has a bad entry 2: "10.0.0.300" is not an IP address')

    const rows = await auditRowsOf(gateway.gateway.services.store, async () => {
      const widened = await admin('PATCH', `/admin/api/projects/${projectId}`, { allowed_ips: ['203.0.113.0/24', '198.51.100.0/24'] })
      expect(widened.status).toBe(200)
      expect(widened.body.allowed_ips).toEqual(['203.0.113.0/24', '198.51.100.0/24'])
    })
    expect(rows.map((row) => [row.action, row.actor.label, row.before?.allowed_ips, row.after?.allowed_ips])).toEqual([
      ['project.edit', 'admin-token:rules', ['203.0.113.0/24', '2001:db8:1::/48'], ['203.0.113.0/24', '198.51.100.0/24']],
    ])
    expect(await statusOf(chat(open, '198.51.100.9'))).toBe(200)
    expect(await statusOf(chat(narrow, '198.51.100.9'))).toBe(200) // now in both
    expect(await statusOf(message(open, '2001:db8:1:ff::9'))).toBe(403)

    const lifted = await admin('PATCH', `/admin/api/projects/${projectId}`, { allowed_ips: null })
    expect(lifted.body.allowed_ips).toBeNull()
    expect(await statusOf(chat(open, '10.1.2.3'))).toBe(200)
    expect(await statusOf(chat(narrow, '10.1.2.3'))).toBe(403) // the key's own list still applies
  })
})
