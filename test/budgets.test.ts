import { afterAll, beforeAll, expect, test } from 'bun:test'
import Anthropic from '@anthropic-ai/sdk'
import OpenAI from 'openai'
import { parseUsd } from '../src/core/money.ts'
import { createKey } from '../src/domain/keys.ts'
import { exactChat, exactModel, operator, projectWithBudget } from './support/budgets.ts'
import { mockConfig, startTestGateway, type TestGateway } from './support/gateway.ts'

// Budgets on a schedule on one SQLite gateway: a project's fixed window shared by its keys, exact to the nano-dollar.
let gateway: TestGateway

beforeAll(async () => {
  gateway = await startTestGateway({
    config: {
      // Nothing listens on port 9: every attempt on `dead` fails at connect.
      providers: [
        ...mockConfig.providers,
        { name: 'dead', type: 'openai', base_url: 'http://127.0.0.1:9', api_key: 'sk-none', timeouts: { connect_ms: 500 } },
      ],
      models: [...mockConfig.models, exactModel, { id: 'dead', provider: 'dead', price: { input: 1, output: 2 } }],
      routing: { max_attempts: 1 },
    },
  })
})

afterAll(() => gateway.stop())

const statuses = (responses: Response[]) => responses.map((response) => response.status).sort()

test('a project budget of 5 requests in a 2s window: 5 of 12 concurrent requests over two keys are answered, then the window resets', async () => {
  const { gateway: running } = gateway
  const { project, budget } = await projectWithBudget(running, gateway.account.id, 'team', { amount: parseUsd('0.015'), period: '2s' })
  const first = await gateway.createKey({ projectId: project.id })
  const second = await gateway.createKey({ projectId: project.id })
  await running.services.keys.refresh()
  const before = await gateway.settled()

  const responses = await Promise.all(
    Array.from({ length: 12 }, (_, index) => exactChat(gateway.url, index % 2 ? first.secret : second.secret)),
  )
  expect(statuses(responses)).toEqual([...Array(5).fill(200), ...Array(7).fill(403)])
  const refused = responses.find((response) => response.status === 403)!
  expect(refused.headers.get('retry-after')).toBeNull()
  const body = (await refused.json()) as { error: { code: string; message: string } }
  expect(body.error.code).toBe('budget_exceeded')
  expect(body.error.message).toContain('project "team"\'s $0.015 2s window budget')
  expect(body.error.message).toMatch(/It resets at \d{4}-\d\d-\d\dT/)

  const after = await gateway.settled()
  expect(before.balance - after.balance).toBe(parseUsd('0.015'))
  const start = (await running.services.store.budgets.latestPeriodStart(budget.id))!
  expect(await running.services.store.budgets.periodFigures(budget.id, start)).toEqual({ spent: parseUsd('0.015'), reserved: 0 })

  // Still refused inside the window; admitted again once it has ended — a new window opened by that request.
  expect((await exactChat(gateway.url, first.secret)).status).toBe(403)
  await Bun.sleep(Math.max(0, start + 2000 - Date.now()) + 50)
  expect((await exactChat(gateway.url, first.secret)).status).toBe(200)
  await gateway.settled()
  const next = (await running.services.store.budgets.latestPeriodStart(budget.id))!
  expect(next).toBeGreaterThanOrEqual(start + 2000)
  expect(await running.services.store.budgets.periodFigures(budget.id, next)).toEqual({ spent: parseUsd('0.003'), reserved: 0 })
}, 20_000)

test('a key budget and an account budget both apply: the smaller is what refuses, and it is named', async () => {
  const account = await gateway.createAccount('budgeted', '10')
  const service = gateway.gateway.services.budgetService
  const { record, secret } = await createKey(gateway.gateway.services.store.keys, { accountId: account.id })
  await service.createBudget(
    { accountId: account.id, scope: 'account', amount: parseUsd('1'), period: 'month', timeZone: 'Europe/Berlin' },
    operator,
  )
  await service.createBudget({ accountId: account.id, scope: 'key', keyId: record.id, amount: parseUsd('0.006'), period: 'day' }, operator)
  const results = [] as number[]
  for (let index = 0; index < 3; index++) results.push((await exactChat(gateway.url, secret)).status)
  expect(results).toEqual([200, 200, 403])
  const refused = await exactChat(gateway.url, secret)
  const message = ((await refused.json()) as { error: { message: string } }).error.message
  expect(message).toContain("this API key's $0.006 daily budget")
  const tomorrow = new Date()
  tomorrow.setUTCHours(24, 0, 0, 0)
  expect(message).toContain(`It resets at ${tomorrow.toISOString()}.`)
})

test('a failed request releases its hold against every budget: nothing spent, nothing left reserved', async () => {
  const { gateway: running } = gateway
  const { project, budget } = await projectWithBudget(running, gateway.account.id, 'failing', { amount: parseUsd('1'), period: 'week' })
  const { secret } = await gateway.createKey({ projectId: project.id })
  await running.services.keys.refresh()
  const response = await fetch(`${gateway.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'dead', messages: [{ role: 'user', content: 'hello' }] }),
  })
  await response.text()
  expect(response.status).toBeGreaterThanOrEqual(500)
  await gateway.settled()
  const start = (await running.services.store.budgets.latestPeriodStart(budget.id))!
  expect(await running.services.store.budgets.periodFigures(budget.id, start)).toEqual({ spent: 0, reserved: 0 })
})

test("budget_exceeded in each protocol's shape: OpenAI insufficient_quota, Anthropic billing_error, Gemini PERMISSION_DENIED, none with Retry-After", async () => {
  const { gateway: running } = gateway
  const { project } = await projectWithBudget(running, gateway.account.id, 'spent', { amount: parseUsd('0.003'), period: 'month' })
  const { secret } = await gateway.createKey({ projectId: project.id })
  expect((await exactChat(gateway.url, secret)).status).toBe(200)

  const openai = await new OpenAI({ baseURL: gateway.baseUrl, apiKey: secret }).chat.completions
    .create({ model: 'exact', messages: [{ role: 'user', content: 'say something please' }] })
    .catch((error: unknown) => error)
  expect(openai).toBeInstanceOf(OpenAI.PermissionDeniedError)
  expect((openai as InstanceType<typeof OpenAI.PermissionDeniedError>).code).toBe('budget_exceeded')
  expect((openai as InstanceType<typeof OpenAI.PermissionDeniedError>).type).toBe('insufficient_quota')
  expect((openai as InstanceType<typeof OpenAI.PermissionDeniedError>).headers.get('retry-after')).toBeNull()
  expect((openai as Error).message).toContain('project "spent"\'s $0.003 monthly budget')

  const anthropic = await new Anthropic({ baseURL: gateway.url, apiKey: secret }).messages
    .create({ model: 'exact', max_tokens: 3, messages: [{ role: 'user', content: 'say something please' }] })
    .catch((error: unknown) => error)
  expect(anthropic).toBeInstanceOf(Anthropic.PermissionDeniedError)
  expect((anthropic as { error: { error: { type: string } } }).error.error.type).toBe('billing_error')

  const gemini = await fetch(`${gateway.url}/v1beta/models/exact:generateContent`, {
    method: 'POST',
    headers: { 'x-goog-api-key': secret, 'content-type': 'application/json' },
    body: JSON.stringify({
      contents: [{ role: 'user', parts: [{ text: 'say something please' }] }],
      generationConfig: { maxOutputTokens: 3 },
    }),
  })
  expect(gemini.status).toBe(403)
  expect(gemini.headers.get('retry-after')).toBeNull()
  const body = (await gemini.json()) as { error: { status: string; message: string } }
  expect(body.error.status).toBe('PERMISSION_DENIED')
  expect(body.error.message).toMatch(/It resets at \d{4}-\d\d-01T/)
})
