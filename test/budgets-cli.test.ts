import { afterAll, expect, test } from 'bun:test'
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { userInfo } from 'node:os'
import { openSqliteStore } from '../src/db/sqlite/store.ts'
import { makeWorkspace, runCli } from './support/cli.ts'

// `tollgate project …` and `tollgate budget …`, as an operator types them: each change one audit row of the OS user.
const cli = ['bun', 'src/main.ts']
const workspace = makeWorkspace()
const run = (...args: string[]) => runCli(cli, [...args, '--config', workspace.config])

afterAll(() => rmSync(workspace.dir, { recursive: true, force: true }))

test('a team of three keys in a project with a monthly budget and a 5h key window, all from the CLI', async () => {
  expect(run('migrate').code).toBe(0)
  expect(run('account', 'create', 'acme', '--balance', '100').code).toBe(0)
  const project = run('project', 'create', 'team', '--account', 'acme', '--models', 'mock-1', '--rpm', '600', '--json')
  expect(project.code).toBe(0)
  expect(project.json()).toMatchObject({ name: 'team', models: ['mock-1'], rpm: 600, keys: 0 })

  const keys = [1, 2, 3].map(
    () => run('key', 'create', '--account', 'acme', '--project', 'team', '--json').json() as { id: string; project_id: number },
  )
  expect(keys.every((key) => key.project_id === project.json().id)).toBe(true)
  const wider = run('key', 'create', '--account', 'acme', '--project', 'team', '--models', 'mock-fast')
  expect(wider.code).toBe(2)
  expect(wider.stderr).toContain("--models must be within its project's models (mock-1)")

  const monthly = run(
    'budget',
    'create',
    '--account',
    'acme',
    '--project',
    'team',
    '--amount',
    '50',
    '--period',
    'month',
    '--time-zone',
    'europe/berlin',
    '--json',
  )
  expect(monthly.code).toBe(0)
  expect(monthly.json()).toMatchObject({
    scope: 'project',
    period: 'month',
    time_zone: 'Europe/Berlin',
    amount_usd: '50.00',
    remaining_usd: '50.00',
  })
  const window = run('budget', 'create', '--account', 'acme', '--key', keys[0]!.id, '--amount', '5', '--period', '300m', '--json')
  expect(window.json()).toMatchObject({ scope: 'key', key_id: keys[0]!.id, period: '5h', resets_at: null })
  const typo = run('budget', 'create', '--account', 'acme', '--amount', '5', '--period', 'monthly')
  expect(typo.code).toBe(2)
  expect(typo.stderr).toContain('"monthly" is not a budget period: use day, week, month, total, or a length such as 30m, 5h or 7d')

  const list = run('budget', 'list', '--account', 'acme')
  expect(list.stdout).toContain('month (Europe/Berlin)')
  expect(list.stdout).toContain('$50.00')
  expect(run('project', 'list').stdout).toMatch(/team\s+mock-1\s+rpm=600\s+3/)
  expect(run('budget', 'edit', String(window.json().id), '--amount', '6', '--json').json()).toMatchObject({ amount_usd: '6.00' })
  expect(run('key', 'edit', keys[2]!.id, '--project', 'none', '--json').json()).toMatchObject({ project_id: null })
  const fenced = run('project', 'edit', String(project.json().id), '--allowed-ips', '203.0.113.0/24, 2001:db8::/32', '--json')
  expect(fenced.json()).toMatchObject({ allowed_ips: ['203.0.113.0/24', '2001:db8::/32'] })
  expect(run('project', 'list').stdout).toMatch(/rpm=600 from=203\.0\.113\.0\/24,2001:db8::\/32/)
  const badAddress = run('project', 'edit', String(project.json().id), '--allowed-ips', '10.0.0.300')
  expect(badAddress.code).toBe(2)
  expect(badAddress.stderr).toContain('allowed_ips has a bad entry 1: "10.0.0.300" is not an IP address')
  expect(run('budget', 'delete', String(window.json().id)).code).toBe(0)
  expect(run('project', 'delete', String(project.json().id)).code).toBe(0)

  const store = openSqliteStore(join(workspace.dir, 'tollgate.db'))
  try {
    const rows = (await store.audit.list({}, 1000)).reverse().filter((row) => row.objectType === 'project' || row.objectType === 'budget')
    expect(rows.map((row) => row.action)).toEqual([
      'project.create',
      'budget.create',
      'budget.create',
      'budget.edit',
      'project.edit',
      'budget.delete',
      'project.delete',
    ])
    expect(rows.every((row) => row.actor.label === `cli:${userInfo().username}`)).toBe(true)
    expect(rows[1]!.after).toMatchObject({ scope: 'project', amount_usd: '50.00', period: 'month', time_zone: 'Europe/Berlin' })
    expect(rows[3]!.before).toEqual({ amount_usd: '5.00' })
    expect(rows[3]!.after).toEqual({ amount_usd: '6.00' })
    expect(rows[4]!.after).toEqual({ allowed_ips: ['203.0.113.0/24', '2001:db8::/32'] })
    // The project's keys stay, in no project; its budget went with it.
    expect((await store.keys.list()).filter((key) => key.projectId !== null)).toEqual([])
    expect(await store.budgets.listBudgets()).toEqual([])
  } finally {
    await store.close()
  }
}, 60_000)
