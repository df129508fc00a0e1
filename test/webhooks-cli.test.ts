import { expect, test } from 'bun:test'
import { userInfo } from 'node:os'
import { join } from 'node:path'
import { openSqliteStore } from '../src/db/sqlite/store.ts'
import { makeWorkspace, runCli } from './support/cli.ts'

/** `tollgate webhook …`: the same WebhookService as the console, its refusals named by flag, one audit row per change. */
const cli = ['bun', 'src/main.ts']

test('the CLI makes, lists, reads and deletes a webhook, and refuses a loopback URL unless the operator allows it', async () => {
  const workspace = makeWorkspace()
  const run = (...args: string[]) => runCli(cli, [...args, '--config', workspace.config])
  expect(run('migrate').code).toBe(0)
  expect(run('account', 'create', 'acme', '--balance', '5').code).toBe(0)

  const loopback = run('webhook', 'create', '--account', 'acme', '--url', 'http://127.0.0.1:9/hook')
  expect(loopback.code).toBe(2)
  expect(loopback.stderr).toContain('--url is refused: 127.0.0.1 is a loopback address')
  expect(loopback.stderr).toContain('webhooks.allow_private_addresses')
  expect(
    run('webhook', 'create', '--account', 'acme', '--url', 'https://hooks.example.com/x', '--events', 'balance.below').stderr,
  ).toContain('--balance-below is needed for balance.below')

  const made = run(
    'webhook',
    'create',
    '--account',
    'acme',
    '--url',
    'https://hooks.example.com/tollgate',
    '--balance-below',
    '2.50',
    '--budget-percents',
    '90,50',
    '--json',
  )
  expect(made.code).toBe(0)
  const webhook = made.json()
  expect(webhook).toMatchObject({
    url: 'https://hooks.example.com/tollgate',
    balance_below_usd: '2.50',
    budget_percents: [50, 90],
    events: ['balance.below', 'budget.threshold', 'key.expiring'],
  })
  expect(webhook.secret).toStartWith('whsec_')
  const listed = run('webhook', 'list', '--account', 'acme')
  expect(listed.stdout).toContain(webhook.id)
  expect(listed.stdout).not.toContain(webhook.secret)
  expect(run('webhook', 'deliveries', webhook.id).stdout).toContain('no deliveries')
  expect(run('webhook', 'delete', webhook.id).stdout).toContain(`deleted webhook ${webhook.id}`)
  expect(run('webhook', 'delete', webhook.id).code).toBe(3)

  const store = openSqliteStore(join(workspace.dir, 'tollgate.db'))
  const rows = await store.audit.list({ objectType: 'webhook' }, 10)
  expect(rows.map((row) => [row.action, row.actor.label])).toEqual([
    ['webhook.delete', `cli:${userInfo().username}`],
    ['webhook.create', `cli:${userInfo().username}`],
  ])
  expect(JSON.stringify(rows)).not.toContain(webhook.secret)
  await store.close()
}, 60_000)
