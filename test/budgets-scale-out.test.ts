import { afterAll, beforeAll, expect, test } from 'bun:test'
import { parseUsd } from '../src/core/money.ts'
import type { Gateway } from '../src/gateway.ts'
import { exactChat, exactModel, operator, projectWithBudget } from './support/budgets.ts'
import { mockConfig, type TestGateway } from './support/gateway.ts'
import { startTwoInstances, type TwoInstances } from './support/two-instances.ts'

// Two gateway instances on one PostgreSQL and one Redis: a project budget is one budget for both, to the request.
const config = { ...mockConfig, models: [...mockConfig.models, exactModel] }

let instances: TwoInstances
let first: TestGateway
let second: Gateway

beforeAll(async () => {
  instances = await startTwoInstances(config)
  ;({ first, second } = instances)
})

afterAll(() => instances?.stop())

test('200 concurrent requests over two instances against a 4s project window covering 50: exactly 50 answered, spend exact; the next window admits', async () => {
  const window = 4000
  const { project, budget } = await projectWithBudget(first.gateway, first.account.id, 'shared', { amount: parseUsd('0.15'), period: '4s' })
  const keys = await Promise.all([1, 2, 3].map(() => first.createKey({ projectId: project.id })))
  // Both instances know the keys (and their project's budget) before the burst, as they would after a second.
  await Promise.all([first.gateway.services.keys.refresh(), second.services.keys.refresh()])
  const before = await first.settled()

  const urls = [first.url, second.url]
  const responses = await Promise.all(
    Array.from({ length: 200 }, async (_, index) => {
      const response = await exactChat(urls[index % 2]!, keys[index % 3]!.secret)
      await response.text()
      return response.status
    }),
  )
  expect(responses.filter((status) => status === 200).length).toBe(50)
  expect(responses.filter((status) => status === 403).length).toBe(150)

  await second.services.ledger.drain()
  const after = await first.settled()
  expect(before.balance - after.balance).toBe(parseUsd('0.15'))
  expect(after.reserved).toBe(0)
  const start = (await first.gateway.services.store.budgets.latestPeriodStart(budget.id))!
  expect(await first.gateway.services.store.budgets.periodFigures(budget.id, start)).toEqual({ spent: parseUsd('0.15'), reserved: 0 })
  const summary = await first.gateway.services.store.usage.summarize({ accountId: first.account.id, model: 'exact' })
  expect(summary.succeeded).toBe(50)
  expect(summary.spent).toBe(parseUsd('0.15'))

  // The window ends at its start + 4s, whichever instance opened it: then each instance admits again.
  expect((await exactChat(second.url, keys[0]!.secret)).status).toBe(403)
  await Bun.sleep(Math.max(0, start + window - Date.now()) + 50)
  const next = await exactChat(second.url, keys[1]!.secret)
  expect(next.status).toBe(200)
  await next.text()
  expect((await exactChat(first.url, keys[2]!.secret)).status).toBe(200)
  await second.services.ledger.drain()
  await first.settled()
  const opened = (await first.gateway.services.store.budgets.latestPeriodStart(budget.id))!
  expect(opened).toBeGreaterThanOrEqual(start + window)
  expect(await first.gateway.services.store.budgets.periodFigures(budget.id, opened)).toEqual({ spent: parseUsd('0.006'), reserved: 0 })
}, 30_000)

test("a project's rpm is shared by its keys across both instances, and the refusal names the project", async () => {
  const project = await first.gateway.services.budgetService.createProject({ accountId: first.account.id, name: 'paced', rpm: 4 }, operator)
  const keys = await Promise.all([1, 2].map(() => first.createKey({ projectId: project.id })))
  await Promise.all([first.gateway.services.keys.refresh(), second.services.keys.refresh()])
  const refusals: string[] = []
  let answered = 0
  for (let index = 0; index < 10; index++) {
    const response = await exactChat([first.url, second.url][index % 2]!, keys[index % 2]!.secret)
    if (response.status === 200) answered++
    else refusals.push(`${response.status} ${((await response.json()) as { error: { message: string } }).error.message}`)
    if (response.status === 200) await response.text()
  }
  expect(answered).toBe(4)
  expect(refusals[0]).toBe('429 Rate limit reached: project "paced" allows 4 requests per minute.')
})

test('a budget made on one instance counts on the other at once, told through Redis, without its poll', async () => {
  const { project } = await projectWithBudget(first.gateway, first.account.id, 'told', { amount: parseUsd('1'), period: 'day' })
  const { secret } = await first.createKey({ projectId: project.id })
  await second.services.keys.refresh()
  expect((await exactChat(second.url, secret)).status).toBe(200)
  second.services.keys.stop() // no polling: only the announcement can tell the second instance
  try {
    await first.gateway.services.budgetService.createBudget(
      { accountId: first.account.id, scope: 'project', projectId: project.id, amount: parseUsd('0.003'), period: 'day' },
      operator,
    )
    const madeAt = performance.now()
    let refusedAfter: number | undefined
    while (performance.now() - madeAt < 1000) {
      const response = await exactChat(second.url, secret)
      await response.text()
      if (response.status === 403) {
        refusedAfter = performance.now() - madeAt
        break
      }
      await Bun.sleep(5)
    }
    expect(refusedAfter).toBeLessThan(200)
  } finally {
    await second.services.keys.start()
  }
})
