import { afterAll, beforeAll, expect, test } from 'bun:test'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createAdminToken } from '../src/domain/admin-tokens.ts'
import { makeWorkspace, runCli } from './support/cli.ts'
import { addLogin, signIn } from './support/console.ts'
import { startTestGateway, type TestGateway } from './support/gateway.ts'

/**
 * ISSUE 22: money is nano-dollars in a JavaScript number, exact up to 2^53 (~$9,007,199). A credit that took a balance
 * past it was committed, and then `GET /admin/api/accounts` and `tollgate account list` failed for everyone. Every
 * path that credits or debits refuses it before writing: the console, the admin API and the CLI.
 */
let gateway: TestGateway
let workspace: { dir: string; config: string }
const nearlyFull = '9000000'
const tooMuch = '9000000'

beforeAll(async () => {
  workspace = makeWorkspace()
  const path = join(mkdtempSync(join(tmpdir(), 'tollgate-range-')), 'tollgate.db')
  gateway = await startTestGateway({ databasePath: path })
  // The CLI works on the same file as the running gateway (WAL), as an operator's would.
  writeFileSync(
    workspace.config,
    `database: sqlite:${path}\nproviders: [{ name: mock, type: mock }]\nmodels: [{ id: mock-1, provider: mock, price: { input: 1, output: 2 } }]\n`,
  )
})
afterAll(() => gateway.stop())

const cli = (...args: string[]) => runCli(['bun', 'src/main.ts'], [...args, '--config', workspace.config])

test('the admin API refuses a credit past the largest balance with a 400, writes nothing, and still lists accounts', async () => {
  const token = (await createAdminToken(gateway.gateway.services.store.adminTokens, 'range', 'full')).secret
  const send = (path: string, body?: unknown) =>
    fetch(`${gateway.url}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
  const created = await send('/admin/api/accounts', { name: 'rich-admin', balance_usd: nearlyFull })
  expect(created.status).toBe(201)
  const { id } = (await created.json()) as { id: string }
  const refused = await send(`/admin/api/accounts/${id}/credits`, { amount_usd: tooMuch, note: 'overflow' })
  expect(refused.status).toBe(400)
  expect(await refused.json()).toMatchObject({
    error: { code: 'invalid', message: expect.stringContaining('largest an account can hold') },
  })
  const listed = await send('/admin/api/accounts')
  expect(listed.status).toBe(200)
  expect(
    ((await listed.json()) as { name: string; balance_usd: string }[]).find((account) => account.name === 'rich-admin')!.balance_usd,
  ).toBe('9000000.00')
})

test('the console refuses it too (400), and a debit below zero as before', async () => {
  const store = gateway.gateway.services.store
  const admin = await signIn(gateway.url, 'range-admin', await addLogin(store, 'range-admin', 'admin'))
  const created = await admin.send('POST', '/console/api/accounts', { name: 'rich-console', balance_usd: nearlyFull })
  expect(created.status).toBe(201)
  const { id } = (await created.json()) as { id: string }
  const refused = await admin.send('POST', `/console/api/accounts/${id}/credits`, { amount_usd: tooMuch, note: 'overflow' })
  expect(refused.status).toBe(400)
  const debit = await admin.send('POST', `/console/api/accounts/${id}/credits`, { amount_usd: '-9000001', note: 'too much' })
  expect(debit.status).toBe(400)
  expect((await admin.get('/console/api/accounts')).status).toBe(200)
  const account = (await store.accounts.findByName('rich-console'))!
  expect(account.balance).toBe(9_000_000_000_000_000)
  expect((await store.accounts.ledgerEntries(account.id)).length).toBe(1) // the opening balance alone
})

test('the CLI refuses it with an error and exit code 2; account list still works', () => {
  expect(cli('account', 'create', 'rich-cli', '--balance', nearlyFull).code).toBe(0)
  const refused = cli('account', 'credit', 'rich-cli', tooMuch)
  expect(refused.code).toBe(2)
  expect(refused.stderr).toContain('largest an account can hold')
  const listed = cli('account', 'list', '--json')
  expect(listed.code).toBe(0)
  expect(listed.json().find((account: { name: string }) => account.name === 'rich-cli').balance_usd).toBe('9000000.00')
})
