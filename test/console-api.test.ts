import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import OpenAI from 'openai'
import type { AccountRecord, KeyRecord } from '../src/domain/records.ts'
import { addLogin, signIn, type ConsoleClient } from './support/console.ts'
import { startTestGateway, type TestGateway } from './support/gateway.ts'

let gateway: TestGateway
let admin: ConsoleClient
let alice: ConsoleClient
let other: AccountRecord
let foreignKey: KeyRecord

beforeAll(async () => {
  gateway = await startTestGateway({ balanceUsd: '3' })
  const { store } = gateway.gateway.services
  other = await gateway.createAccount('other-co', '7')
  foreignKey = (await gateway.createKey({ accountId: other.id, name: 'foreign' })).record
  const foreignClient = new OpenAI({
    baseURL: gateway.baseUrl,
    apiKey: (await gateway.createKey({ accountId: other.id })).secret,
    maxRetries: 0,
  })
  await foreignClient.chat.completions.create({ model: 'mock-1', messages: [{ role: 'user', content: 'their traffic' }] })
  admin = await signIn(gateway.url, 'root', await addLogin(store, 'root', 'admin'))
  alice = await signIn(gateway.url, 'alice', await addLogin(store, 'alice', 'account-admin', gateway.account.id))
  await gateway.settled()
}, 30_000)

afterAll(() => gateway.stop())

describe('an account user reaches only their own account', () => {
  test("every crafted ID of another account is a 404, exactly like a missing one; an admin's action is a 403", async () => {
    const { store } = gateway.gateway.services
    const balanceBefore = (await store.accounts.findById(other.id))!.balance
    const reads = [
      `/console/api/keys/${foreignKey.id}`,
      `/console/api/accounts/${other.id}`,
      `/console/api/accounts/${other.id}/history`,
      `/console/api/keys?account_id=${other.id}`,
      `/console/api/usage?account_id=${other.id}`,
      `/console/api/usage?key_id=${foreignKey.id}`,
      `/console/api/requests?account_id=${other.id}`,
      `/console/api/requests?key_id=${foreignKey.id}`,
      `/console/api/users?account_id=${other.id}`,
      '/console/api/keys/key_doesnotexist',
      '/console/api/accounts/999999',
    ]
    for (const path of reads) {
      const response = await alice.get(path)
      expect({ path, status: response.status }).toEqual({ path, status: 404 })
    }
    const writes: [string, string, unknown, number][] = [
      ['POST', `/console/api/keys/${foreignKey.id}/revoke`, {}, 404],
      ['POST', '/console/api/keys', { account_id: other.id, name: 'sneaky' }, 404],
      ['POST', '/console/api/users', { name: 'mallory', role: 'viewer', account_id: other.id }, 404],
      // What an account-admin may not do at all (money, accounts, making an admin) is a 403, whichever account.
      ['POST', `/console/api/accounts/${other.id}/credits`, { amount_usd: '100', note: 'free money' }, 403],
      ['POST', `/console/api/accounts/${gateway.account.id}/credits`, { amount_usd: '100', note: 'free money' }, 403],
      ['POST', '/console/api/accounts', { name: 'mine-now' }, 403],
      ['POST', '/console/api/users', { name: 'mallory', role: 'admin' }, 403],
    ]
    for (const [method, path, body, status] of writes) {
      const response = await alice.send(method, path, body)
      expect({ path, status: response.status }).toEqual({ path, status })
    }
    expect((await store.keys.findById(foreignKey.id))!.revokedAt).toBeNull()
    expect((await store.accounts.findById(other.id))!.balance).toBe(balanceBefore)
    expect((await store.keys.list(other.id)).some((key) => key.name === 'sneaky')).toBe(false)
    expect(await store.users.findByName('mallory')).toBeUndefined()
  })

  test('lists, usage and the request log hold only their own account', async () => {
    const keys = (await (await alice.get('/console/api/keys')).json()) as { account_id: number }[]
    expect(keys.length).toBeGreaterThan(0)
    expect(keys.every((key) => key.account_id === gateway.account.id)).toBe(true)
    const accounts = (await (await alice.get('/console/api/accounts')).json()) as { id: number }[]
    expect(accounts.map((account) => account.id)).toEqual([gateway.account.id])
    const logins = (await (await alice.get('/console/api/users')).json()) as { name: string; account_id: number | null }[]
    expect(logins.map((login) => [login.name, login.account_id])).toEqual([['alice', gateway.account.id]]) // not root, the admin
    // The only request so far was the other account's: alice sees none of it.
    const log = await (await alice.get('/console/api/requests')).json()
    expect(log.requests).toEqual([])
    const usage = await (await alice.get('/console/api/usage')).json()
    expect(usage.totals).toEqual({ requests: 0, succeeded: 0, refused: 0, failed: 0, input_tokens: 0, output_tokens: 0, spent_usd: '0.00' })
    expect(usage.by_account).toBeUndefined()
  })

  test('a key made by an account user lands on their own account even without naming it', async () => {
    const response = await alice.send('POST', '/console/api/keys', { name: 'own' })
    expect(response.status).toBe(201)
    const created = await response.json()
    expect(created.key.account_id).toBe(gateway.account.id)
    expect(created.secret).toMatch(/^tg-/)
  })
})

describe('what the admin can do', () => {
  test('a credit is a ledger entry with its note and the admin as actor; money stays exact', async () => {
    const response = await admin.send('POST', `/console/api/accounts/${other.id}/credits`, {
      amount_usd: '0.000000001',
      note: 'rounding test',
    })
    expect(response.status).toBe(201)
    expect((await response.json()).balance_usd).toMatch(/^\d+\.\d{9}$/)
    const history = await (await admin.get(`/console/api/accounts/${other.id}/history`)).json()
    // Today's spend is listed as of the end of the day, so the newest *credit* is the first credit entry.
    expect(history.history.find((entry: { kind: string }) => entry.kind === 'credit')).toMatchObject({
      kind: 'credit',
      amount_usd: '0.000000001',
      note: 'rounding test',
      actor: 'root',
    })
    const refused = await admin.send('POST', `/console/api/accounts/${other.id}/credits`, { amount_usd: '-1000', note: 'too much' })
    expect(refused.status).toBe(400)
    const noNote = await admin.send('POST', `/console/api/accounts/${other.id}/credits`, { amount_usd: '1', note: ' ' })
    expect((await noNote.json()).error.field).toBe('note')
  })

  test('system-wide usage covers every account, with a breakdown by account', async () => {
    const usage = await (await admin.get('/console/api/usage')).json()
    expect(usage.totals.requests).toBeGreaterThanOrEqual(1)
    expect(usage.by_account.map((group: { label: string }) => group.label)).toContain('other-co')
    expect(usage.daily.length).toBe(30)
    expect(typeof usage.totals.spent_usd).toBe('string')
  })

  test('bad key input is a 400 naming the field', async () => {
    const cases: [unknown, string][] = [
      [{ account_id: gateway.account.id, models: ['no-such-model'] }, 'unknown model'],
      [{ account_id: gateway.account.id, rpm: 0 }, 'rpm'],
      [{ account_id: gateway.account.id, budget_usd: '1.0000000001' }, 'budget_usd'],
      [{ account_id: gateway.account.id, expires_at: '2001-01-01T00:00:00Z' }, 'expires_at'],
      [{ name: 'no account' }, 'account_id'],
    ]
    for (const [body, mention] of cases) {
      const response = await admin.send('POST', '/console/api/keys', body)
      expect(response.status).toBe(400)
      expect(JSON.stringify(await response.json())).toContain(mention)
    }
  })

  test('logins: a generated password is returned once and works; an admin cannot delete their own login', async () => {
    const noAccount = await admin.send('POST', '/console/api/users', { name: 'bob' }) // a viewer, the default role, of no account
    expect(noAccount.status).toBe(400)
    expect((await noAccount.json()).error.field).toBe('account_id')
    const created = await admin.send('POST', '/console/api/users', { name: 'bob', role: 'account-admin', account_id: other.id })
    expect(created.status).toBe(201)
    const { user, password } = await created.json()
    expect(password).toMatch(/^[0-9A-Za-z]{24}$/)
    const bob = await signIn(gateway.url, 'bob', password)
    expect((await (await bob.get('/console/api/session')).json()).user.account.name).toBe('other-co')
    const self = (await (await admin.get('/console/api/session')).json()).user.id
    expect((await admin.send('DELETE', `/console/api/users/${self}`)).status).toBe(400)
    expect((await admin.send('DELETE', `/console/api/users/${user.id}`)).status).toBe(200)
    expect((await bob.get('/console/api/session')).status).toBe(401) // deleting a login ends its sessions
  })
})

describe('request log paging', () => {
  test('keyset pages are newest first, never repeat a row and end with next: null', async () => {
    const client = new OpenAI({ baseURL: gateway.baseUrl, apiKey: gateway.key, maxRetries: 0 })
    for (let index = 0; index < 5; index++)
      await client.chat.completions.create({ model: 'mock-fast', messages: [{ role: 'user', content: `n${index}` }] })
    await gateway.settled()
    const seen: number[] = []
    let next: string | null = null
    let pages = 0
    do {
      const page: { requests: { id: number; model: string; at: string }[]; next: string | null } = await (
        await alice.get(`/console/api/requests?limit=2&model=mock-fast${next ? `&before=${next}` : ''}`)
      ).json()
      seen.push(...page.requests.map((row) => row.id))
      expect(page.requests.every((row) => row.model === 'mock-fast')).toBe(true)
      next = page.next
      pages++
    } while (next)
    expect(pages).toBe(3)
    expect(new Set(seen).size).toBe(5)
    expect(seen).toEqual([...seen].sort((a, b) => b - a))
    expect((await alice.get('/console/api/requests?status=5xx')).status).toBe(200)
    expect((await alice.get('/console/api/requests?status=teapot')).status).toBe(400)
    expect((await alice.get('/console/api/requests?before=garbage')).status).toBe(400)
  })
})
