import { afterAll, beforeAll, expect, test } from 'bun:test'
import { createAdminToken } from '../src/domain/admin-tokens.ts'
import { auditRowsOf } from './support/audit.ts'
import { exactChat, exactModel } from './support/budgets.ts'
import { mockConfig, startTestGateway, type TestGateway } from './support/gateway.ts'

// Projects and budgets through the admin API: each change exactly one audit row with its token and fields, applied
// to the very next request on this instance, and a key's project checked against its account and models.
let gateway: TestGateway
let token: string

beforeAll(async () => {
  gateway = await startTestGateway({ config: { ...mockConfig, models: [...mockConfig.models, exactModel] } })
  token = (await createAdminToken(gateway.gateway.services.store.adminTokens, 'budgets', 'full')).secret
})

afterAll(() => gateway.stop())

async function call(method: string, path: string, body?: unknown) {
  const response = await fetch(`${gateway.url}/admin/api${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  return {
    status: response.status,
    body: (await response.json()) as Record<string, unknown> & { error?: { message: string; field?: string } },
  }
}

const store = () => gateway.gateway.services.store

test('each change is one audit row, and a budget counts from the next request', async () => {
  let project!: { id: number }
  const created = await auditRowsOf(store(), async () => {
    const answer = await call('POST', '/projects', { account_id: gateway.account.id, name: 'api-team', models: ['exact'], concurrency: 5 })
    expect(answer.status).toBe(201)
    project = answer.body as unknown as { id: number }
  })
  expect(created.map((row) => [row.action, row.actor.label, row.after])).toEqual([
    ['project.create', 'admin-token:budgets', { name: 'api-team', models: ['exact'], rpm: null, tpm: null, concurrency: 5 }],
  ])

  const key = await call('POST', '/keys', { account_id: gateway.account.id, project_id: project.id, name: 'teammate' })
  expect(key.status).toBe(201)
  const secret = key.body.secret as string
  const keyId = (key.body.key as { id: string; project_id: number }).id
  expect((key.body.key as { project_id: number }).project_id).toBe(project.id)

  let budgetId = 0
  const budgetRows = await auditRowsOf(store(), async () => {
    const answer = await call('POST', '/budgets', {
      account_id: gateway.account.id,
      scope: 'project',
      project_id: project.id,
      amount_usd: '0.006',
      period: 'day',
      time_zone: 'Asia/Tokyo',
    })
    expect(answer.status).toBe(201)
    expect(answer.body).toMatchObject({
      scope: 'project',
      project_id: project.id,
      period: 'day',
      time_zone: 'Asia/Tokyo',
      amount_usd: '0.006',
      remaining_usd: '0.006',
    })
    budgetId = answer.body.id as number
  })
  expect(budgetRows.map((row) => [row.action, row.objectType, row.objectId, row.accountId])).toEqual([
    ['budget.create', 'budget', String(budgetId), gateway.account.id],
  ])

  // In force at once on this instance: two requests fit, the third is refused, naming the project and Tokyo's midnight.
  expect((await exactChat(gateway.url, secret)).status).toBe(200)
  expect((await exactChat(gateway.url, secret)).status).toBe(200)
  const refused = await exactChat(gateway.url, secret)
  expect(refused.status).toBe(403)
  expect(((await refused.json()) as { error: { message: string } }).error.message).toContain(
    'project "api-team"\'s $0.006 daily budget (Asia/Tokyo)',
  )
  await gateway.settled()
  const listed = await call('GET', `/budgets?account_id=${gateway.account.id}`)
  const shown = (listed.body as unknown as { id: number; spent_usd: string; remaining_usd: string; resets_at: string }[]).find(
    (budget) => budget.id === budgetId,
  )!
  expect(shown).toMatchObject({ spent_usd: '0.006', remaining_usd: '0.00' })
  expect(new Date(shown.resets_at).getUTCHours()).toBe(15) // Tokyo midnight is 15:00 UTC

  const edits = await auditRowsOf(store(), async () => {
    expect((await call('PATCH', `/budgets/${budgetId}`, { amount_usd: '1' })).status).toBe(200)
    expect((await call('PATCH', `/projects/${project.id}`, { name: 'api-team-2' })).status).toBe(200)
  })
  expect(edits.map((row) => [row.action, row.before, row.after])).toEqual([
    ['budget.edit', { amount_usd: '0.006' }, { amount_usd: '1.00' }],
    ['project.edit', { name: 'api-team' }, { name: 'api-team-2' }],
  ])
  expect((await exactChat(gateway.url, secret)).status).toBe(200)

  const deletions = await auditRowsOf(store(), async () => {
    expect((await call('DELETE', `/budgets/${budgetId}`)).status).toBe(200)
    expect((await call('DELETE', `/projects/${project.id}`)).status).toBe(200)
  })
  expect(deletions.map((row) => row.action)).toEqual(['budget.delete', 'project.delete'])
  expect((await call('GET', `/keys/${keyId}`)).body.project_id).toBeNull()
})

test('refusals: a project of another account, models wider than the project, a bad period, a budget of nothing; none leaves a row', async () => {
  const other = await gateway.createAccount('other-budgets', '1')
  const foreign = await call('POST', '/projects', { account_id: other.id, name: 'theirs', models: ['exact'] })
  const narrow = await call('POST', '/projects', { account_id: gateway.account.id, name: 'narrow', models: ['exact'] })
  const rows = await auditRowsOf(store(), async () => {
    const wrongAccount = await call('POST', '/keys', { account_id: gateway.account.id, project_id: foreign.body.id })
    expect([wrongAccount.status, wrongAccount.body.error?.field]).toEqual([400, 'project_id'])
    const wider = await call('POST', '/keys', { account_id: gateway.account.id, project_id: narrow.body.id, models: ['mock-1'] })
    expect(wider.status).toBe(400)
    expect(wider.body.error?.message).toContain("within its project's models (exact)")
    const period = await call('POST', '/budgets', { account_id: gateway.account.id, scope: 'account', amount_usd: '1', period: '1.5h' })
    expect([period.status, period.body.error?.message]).toEqual([
      400,
      '"1.5h" is not a budget period: use day, week, month, total, or a length such as 30m, 5h or 7d',
    ])
    const zero = await call('POST', '/budgets', { account_id: gateway.account.id, scope: 'account', amount_usd: '0', period: 'day' })
    expect(zero.status).toBe(400)
    const zone = await call('POST', '/budgets', {
      account_id: gateway.account.id,
      scope: 'account',
      amount_usd: '1',
      period: 'day',
      time_zone: 'Mars/Base',
    })
    expect(zone.status).toBe(400)
    const twice = await call('POST', '/projects', { account_id: gateway.account.id, name: 'narrow' })
    expect(twice.status).toBe(409)
  })
  expect(rows).toEqual([])
})
