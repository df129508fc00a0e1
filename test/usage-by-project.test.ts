import { afterAll, beforeAll, expect, test } from 'bun:test'
import { createAdminToken } from '../src/domain/admin-tokens.ts'
import { exactChat, exactModel, operator } from './support/budgets.ts'
import { mockConfig, startTestGateway, type TestGateway } from './support/gateway.ts'

// Usage, spend and the request log broken down and filtered by project (its keys as they are now).
let gateway: TestGateway
let token: string

beforeAll(async () => {
  gateway = await startTestGateway({ config: { ...mockConfig, models: [...mockConfig.models, exactModel] } })
  token = (await createAdminToken(gateway.gateway.services.store.adminTokens, 'usage', 'read')).secret
})

afterAll(() => gateway.stop())

const get = async (path: string) =>
  (await fetch(`${gateway.url}/admin/api${path}`, { headers: { authorization: `Bearer ${token}` } })).json() as Promise<
    Record<string, unknown>
  >

test("two projects and a key in none: by_project sums each project's keys, project_id filters totals and the request log", async () => {
  const { budgetService } = gateway.gateway.services
  const accountId = gateway.account.id
  const red = await budgetService.createProject({ accountId, name: 'red' }, operator)
  const blue = await budgetService.createProject({ accountId, name: 'blue' }, operator)
  const keys = await Promise.all([red.id, red.id, blue.id, null].map((projectId) => gateway.createKey({ projectId })))
  // red: 3 requests over two keys; blue: 1; the key in no project: 2.
  for (const index of [0, 1, 1, 2, 3, 3]) expect((await exactChat(gateway.url, keys[index]!.secret)).status).toBe(200)
  await gateway.settled()

  const report = (await get(`/usage?account_id=${accountId}`)) as {
    by_project: { id: string; label: string; requests: number; spent_usd: string }[]
  }
  expect(report.by_project.map((group) => [group.label, group.requests, group.spent_usd])).toEqual([
    ['red', 3, '0.009'],
    ['blue', 1, '0.003'],
  ])
  const onlyRed = (await get(`/usage?account_id=${accountId}&project_id=${red.id}`)) as { totals: { requests: number; spent_usd: string } }
  expect([onlyRed.totals.requests, onlyRed.totals.spent_usd]).toEqual([3, '0.009'])
  const log = (await get(`/requests?project_id=${blue.id}`)) as { requests: { key_id: string }[] }
  expect(log.requests.map((row) => row.key_id)).toEqual([keys[2]!.record.id])
  const other = await gateway.createAccount('usage-other', '1')
  const foreign = await budgetService.createProject({ accountId: other.id, name: 'theirs' }, operator)
  const empty = (await get(`/usage?project_id=${foreign.id}`)) as { totals: { requests: number } }
  expect(empty.totals.requests).toBe(0)
})
