import Anthropic from '@anthropic-ai/sdk'
import { GoogleGenAI } from '@google/genai'
import { afterAll, beforeAll, expect, test } from 'bun:test'
import OpenAI from 'openai'
import { parseUsd } from '../src/core/money.ts'
import { exactModel, operator } from './support/budgets.ts'
import { mockConfig, startTestGateway, type TestGateway } from './support/gateway.ts'

// GET /v1/key with the key itself, each vendor's way, and the three SDKs still working for a key in a project.
let gateway: TestGateway
let secret: string
let keyId: string

interface KeyView {
  id: string
  project: { name: string } | null
  models: string[]
  expires_at: string | null
  limits: { rpm: number | null; project: { rpm: number | null } | null }
  budgets: {
    scope: string
    period: string
    time_zone: string
    amount_usd: string
    spent_usd: string
    remaining_usd: string
    resets_at: string | null
    scope_name: string | null
  }[]
}

beforeAll(async () => {
  gateway = await startTestGateway({ config: { ...mockConfig, models: [...mockConfig.models, exactModel] } })
  const { budgetService, keyService } = gateway.gateway.services
  const accountId = gateway.account.id
  const project = await budgetService.createProject({ accountId, name: 'team', models: ['exact', 'mock-1'], rpm: 600 }, operator)
  const created = await keyService.create(
    {
      accountId,
      projectId: project.id,
      rpm: 60,
      models: ['exact', 'mock-1'],
      budget: parseUsd('2'),
      expiresAt: Date.parse('2030-01-01T00:00:00Z'),
    },
    operator,
  )
  secret = created.secret
  keyId = created.record.id
  await budgetService.createBudget(
    { accountId, scope: 'project', projectId: project.id, amount: parseUsd('50'), period: 'month', timeZone: 'Europe/Berlin' },
    operator,
  )
  await budgetService.createBudget({ accountId, scope: 'key', keyId, amount: parseUsd('1.5'), period: '5h' }, operator)
})

afterAll(() => gateway.stop())

const view = async (response: Response) => {
  expect(response.status).toBe(200)
  return (await response.json()) as KeyView
}

test('before any request: budgets unspent, the month resets at Berlin midnight, the 5h window is not open yet', async () => {
  const key = await view(await fetch(`${gateway.url}/v1/key`, { headers: { authorization: `Bearer ${secret}` } }))
  expect(key.id).toBe(keyId)
  expect(key.project?.name).toBe('team')
  expect(key.models).toEqual(['mock-1', 'exact'])
  expect(key.expires_at).toBe('2030-01-01T00:00:00.000Z')
  expect(key.limits.rpm).toBe(60)
  expect(key.limits.project?.rpm).toBe(600)
  const [month, window, lifetime] = key.budgets
  expect(month).toMatchObject({
    scope: 'project',
    scope_name: 'team',
    period: 'month',
    time_zone: 'Europe/Berlin',
    amount_usd: '50.00',
    spent_usd: '0.00',
    remaining_usd: '50.00',
  })
  const berlinMonthEnd = new Date(month!.resets_at!)
  expect(
    new Intl.DateTimeFormat('en-GB', {
      timeZone: 'Europe/Berlin',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      hourCycle: 'h23',
    }).format(berlinMonthEnd),
  ).toBe('1, 00:00')
  expect(window).toMatchObject({ scope: 'key', period: '5h', remaining_usd: '1.50', resets_at: null })
  expect(lifetime).toMatchObject({ scope: 'key', period: 'total', amount_usd: '2.00', resets_at: null })
})

test('after a request through each SDK, every scope shows the same exact spend and the window its reset', async () => {
  const openai = new OpenAI({ baseURL: gateway.baseUrl, apiKey: secret, maxRetries: 0 })
  const answer = await openai.chat.completions.create({ model: 'exact', messages: [{ role: 'user', content: 'say something please' }] })
  expect(answer.choices[0]?.message.content).toBeTruthy()
  const anthropic = new Anthropic({ baseURL: gateway.url, apiKey: secret, maxRetries: 0 })
  const message = await anthropic.messages.create({
    model: 'exact',
    max_tokens: 3,
    messages: [{ role: 'user', content: 'say something please' }],
  })
  expect(message.content.length).toBeGreaterThan(0)
  const genai = new GoogleGenAI({ apiKey: secret, httpOptions: { baseUrl: gateway.url } })
  const generated = await genai.models.generateContent({ model: 'exact', contents: 'say something please', config: { maxOutputTokens: 3 } })
  expect(generated.text).toBeTruthy()
  const refused = await genai.models.generateContent({ model: 'mock-fast', contents: 'hello' }).catch((error: unknown) => error)
  expect(String(refused)).toContain('not permitted') // outside the project's models
  await gateway.settled()
  await gateway.gateway.services.keys.refresh()

  const started = Date.now()
  const key = await view(await fetch(`${gateway.url}/v1/key`, { headers: { authorization: `Bearer ${secret}` } }))
  for (const budget of key.budgets) expect(budget.spent_usd).toBe('0.009')
  expect(key.budgets[0]!.remaining_usd).toBe('49.991')
  expect(key.budgets[1]!.remaining_usd).toBe('1.491')
  expect(key.budgets[2]!.remaining_usd).toBe('1.991')
  const windowEnd = Date.parse(key.budgets[1]!.resets_at!)
  expect(windowEnd - started).toBeGreaterThan(5 * 3_600_000 - 10_000)
  expect(windowEnd - started).toBeLessThanOrEqual(5 * 3_600_000)
})

test("the same answer through each vendor's auth: OpenAI and Anthropic SDKs, x-goog-api-key and ?key=", async () => {
  const openai = await new OpenAI({ baseURL: gateway.baseUrl, apiKey: secret, maxRetries: 0 }).get<KeyView>('/key')
  const anthropic = await new Anthropic({ baseURL: gateway.url, apiKey: secret, maxRetries: 0 }).get<KeyView>('/v1/key')
  const google = await view(await fetch(`${gateway.url}/v1/key`, { headers: { 'x-goog-api-key': secret } }))
  const query = await view(await fetch(`${gateway.url}/v1/key?key=${secret}`))
  for (const answer of [anthropic, google, query]) expect(answer).toEqual(openai)
})

test("a wrong key is refused in each protocol's shape", async () => {
  const openai = await fetch(`${gateway.url}/v1/key`, { headers: { authorization: 'Bearer tg-wrong' } })
  expect(openai.status).toBe(401)
  expect(((await openai.json()) as { error: { code: string } }).error.code).toBe('invalid_api_key')
  const anthropic = await fetch(`${gateway.url}/v1/key`, { headers: { 'x-api-key': 'tg-wrong', 'anthropic-version': '2023-06-01' } })
  expect(((await anthropic.json()) as { type: string; error: { type: string } }).error.type).toBe('authentication_error')
  const gemini = await fetch(`${gateway.url}/v1/key`, { headers: { 'x-goog-api-key': 'tg-wrong' } })
  expect(((await gemini.json()) as { error: { status: string } }).error.status).toBe('UNAUTHENTICATED')
})
