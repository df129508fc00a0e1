import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import type { AuditRow } from '../src/domain/audit/records.ts'
import type { AccountRecord, UserRecord } from '../src/domain/records.ts'
import { auditRowsOf } from './support/audit.ts'
import { addLogin, type ConsoleClient, postSignIn, signIn } from './support/console.ts'
import { startTestGateway, type TestGateway } from './support/gateway.ts'

/**
 * Each kind of change made through the console API leaves exactly one audit row, with the login that made it, its
 * address, the object, and the changed fields before and after; the audit log reads back through the console API
 * narrowed to what the role may see.
 */
let gateway: TestGateway
let ops: ConsoleClient
let opsUser: UserRecord
const address = '127.0.0.1'

beforeAll(async () => {
  gateway = await startTestGateway()
  const { store } = gateway.gateway.services
  const password = await addLogin(store, 'ops', 'admin')
  opsUser = (await store.users.findByName('ops'))!
  ops = await signIn(gateway.url, 'ops', password)
})

afterAll(() => gateway?.stop())

const store = () => gateway.gateway.services.store
const rowsOf = (action: () => Promise<unknown>) => auditRowsOf(store(), action)
const byOps = () => ({ kind: 'user', id: String(opsUser.id), label: 'ops', address })

/** The one row a change left, after checking it is the only one and that the call answered `status`. */
async function onlyRow(status: number, call: () => Promise<Response>): Promise<AuditRow> {
  let answered = 0
  let text = ''
  const rows = await rowsOf(async () => {
    const response = await call()
    answered = response.status
    text = await response.text()
  })
  expect({ answered, text: answered === status ? '' : text }).toEqual({ answered: status, text: '' })
  expect(rows).toHaveLength(1)
  return rows[0]!
}

describe('each change through the console is one audit row', () => {
  let account: AccountRecord
  let keyId: string

  test('an account is opened: account.create with its opening balance', async () => {
    const row = await onlyRow(201, () => ops.send('POST', '/console/api/accounts', { name: 'globex', balance_usd: '5' }))
    account = (await store().accounts.findByName('globex'))!
    expect(row).toMatchObject({
      action: 'account.create',
      objectType: 'account',
      objectId: String(account.id),
      accountId: account.id,
      actor: byOps(),
      before: null,
      after: { name: 'globex', balance_usd: '5.00' },
    })
    // The opening balance's ledger entry names the same login.
    expect((await store().accounts.ledgerEntries(account.id))[0]).toMatchObject({ amount: 5_000_000_000, actor: 'ops' })
  })

  test('money in and out: account.credit and account.debit with the balance before and after', async () => {
    const credit = await onlyRow(201, () =>
      ops.send('POST', `/console/api/accounts/${account.id}/credits`, { amount_usd: '2.5', note: 'invoice 7' }),
    )
    expect(credit).toMatchObject({
      action: 'account.credit',
      objectId: String(account.id),
      accountId: account.id,
      actor: byOps(),
      before: { balance_usd: '5.00' },
      after: { balance_usd: '7.50', amount_usd: '2.50', note: 'invoice 7' },
    })
    const debit = await onlyRow(201, () =>
      ops.send('POST', `/console/api/accounts/${account.id}/credits`, { amount_usd: '-1', note: 'refund' }),
    )
    expect(debit).toMatchObject({
      action: 'account.debit',
      before: { balance_usd: '7.50' },
      after: { balance_usd: '6.50', amount_usd: '-1.00', note: 'refund' },
    })
  })

  test('a key is created, edited, rotated and revoked: one row each, the secret only ever "rotated"', async () => {
    const created = await onlyRow(201, () => ops.send('POST', '/console/api/keys', { account_id: account.id, name: 'ci', rpm: 60 }))
    keyId = created.objectId!
    expect(created).toMatchObject({
      action: 'key.create',
      objectType: 'key',
      accountId: account.id,
      actor: byOps(),
      before: null,
      after: {
        account_id: account.id,
        name: 'ci',
        models: null,
        rpm: 60,
        tpm: null,
        concurrency: null,
        budget_usd: null,
        expires_at: null,
        revoked_at: null,
      },
    })
    const edited = await onlyRow(200, () => ops.send('PATCH', `/console/api/keys/${keyId}`, { rpm: 100, budget_usd: '3' }))
    expect(edited).toMatchObject({
      action: 'key.edit',
      objectId: keyId,
      actor: byOps(),
      before: { rpm: 60, budget_usd: null },
      after: { rpm: 100, budget_usd: '3.00' },
    })
    const rotated = await onlyRow(200, () => ops.send('POST', `/console/api/keys/${keyId}/rotate`))
    expect(rotated).toMatchObject({ action: 'key.rotate', objectId: keyId, actor: byOps(), before: null, after: { secret: 'rotated' } })
    const revoked = await onlyRow(200, () => ops.send('POST', `/console/api/keys/${keyId}/revoke`))
    expect(revoked).toMatchObject({
      action: 'key.revoke',
      objectId: keyId,
      before: { revoked_at: null },
      after: { revoked_at: expect.any(String) },
    })
    // Revoking it again changes nothing, so it records nothing; nor does a refused edit of a revoked key (409).
    expect(await rowsOf(() => ops.send('POST', `/console/api/keys/${keyId}/revoke`))).toEqual([])
    expect(await rowsOf(async () => expect((await ops.send('PATCH', `/console/api/keys/${keyId}`, { rpm: 1 })).status).toBe(409))).toEqual(
      [],
    )
  })

  test('a login is created, its password reset, its sign-in unlocked, and deleted; it signs in and fails to', async () => {
    const created = await onlyRow(201, () =>
      ops.send('POST', '/console/api/users', { name: 'vera', role: 'viewer', account_id: account.id, password: 'vera-first-password' }),
    )
    const vera = (await store().users.findByName('vera'))!
    expect(created).toMatchObject({
      action: 'user.create',
      objectType: 'user',
      objectId: String(vera.id),
      accountId: account.id,
      actor: byOps(),
      before: null,
      after: { name: 'vera', role: 'viewer', account_id: account.id, password: 'set' },
    })

    const signedIn = await onlyRow(200, () => postSignIn(gateway.url, 'vera', 'vera-first-password'))
    expect(signedIn).toMatchObject({
      action: 'user.sign-in',
      objectId: String(vera.id),
      accountId: account.id,
      actor: { kind: 'user', id: String(vera.id), label: 'vera', address },
      after: { method: 'password' },
    })
    const failed = await onlyRow(401, () => postSignIn(gateway.url, 'vera', 'not-her-password'))
    expect(failed).toMatchObject({
      action: 'user.sign-in-failed',
      objectId: String(vera.id),
      accountId: account.id,
      actor: { kind: 'anonymous', id: null, label: 'anonymous', address },
      before: null,
      after: { method: 'password', reason: 'wrong_credentials' },
    })
    // A name no login has: the attempt is recorded, the name (perhaps a mistyped password) is not.
    const unknown = await onlyRow(401, () => postSignIn(gateway.url, 'hunter2-typed-as-name', 'whatever-it-was'))
    expect(unknown).toMatchObject({
      action: 'user.sign-in-failed',
      objectId: null,
      accountId: null,
      after: { method: 'password', reason: 'wrong_credentials' },
    })
    expect(JSON.stringify(unknown)).not.toContain('hunter2')

    const reset = await onlyRow(200, () => ops.send('POST', `/console/api/users/${vera.id}/password`, { password: 'vera-second-password' }))
    expect(reset).toMatchObject({
      action: 'user.password',
      objectId: String(vera.id),
      actor: byOps(),
      before: null,
      after: { password: 'rotated' },
    })
    const unlocked = await onlyRow(200, () => ops.send('POST', `/console/api/users/${vera.id}/unlock`))
    expect(unlocked).toMatchObject({ action: 'user.unlock', objectId: String(vera.id), actor: byOps(), after: { sign_in: 'unlocked' } })

    // Her own password, changed by herself: the actor is vera.
    const veraConsole = await signIn(gateway.url, 'vera', 'vera-second-password')
    const own = await onlyRow(200, () =>
      veraConsole.send('POST', '/console/api/session/password', {
        current_password: 'vera-second-password',
        new_password: 'vera-third-password',
      }),
    )
    expect(own).toMatchObject({
      action: 'user.password',
      objectId: String(vera.id),
      actor: { kind: 'user', label: 'vera', address },
      after: { password: 'rotated' },
    })
    // That change signed every session of hers out, this one too (the browser got a new cookie): sign in again.
    const again = await signIn(gateway.url, 'vera', 'vera-third-password')
    const wrongCurrent = await onlyRow(400, () =>
      again.send('POST', '/console/api/session/password', { current_password: 'a-wrong-password', new_password: 'vera-fourth-password' }),
    )
    expect(wrongCurrent).toMatchObject({
      action: 'user.sign-in-failed',
      objectId: String(vera.id),
      after: { method: 'password', reason: 'wrong_current_password' },
    })

    const deleted = await onlyRow(200, () => ops.send('DELETE', `/console/api/users/${vera.id}`))
    expect(deleted).toMatchObject({
      action: 'user.delete',
      objectId: String(vera.id),
      actor: byOps(),
      after: null,
      before: { name: 'vera', role: 'viewer', account_id: account.id, password: 'set' },
    })
  })

  test('a change whose transaction fails leaves no row; a row that cannot be written fails its change', async () => {
    // Force failures below the gateway, in its own database file: the ledger entry of a credit, then the audit row itself.
    const raw = new Database(gateway.gateway.services.config.database.slice('sqlite:'.length))
    const before = (await store().accounts.findById(account.id))!.balance
    try {
      raw.exec(`CREATE TRIGGER ledger_broken BEFORE INSERT ON ledger_entries BEGIN SELECT RAISE(ABORT, 'forced failure'); END`)
      expect(
        await rowsOf(async () =>
          expect((await ops.send('POST', `/console/api/accounts/${account.id}/credits`, { amount_usd: '1', note: 'lost' })).status).toBe(
            500,
          ),
        ),
      ).toEqual([])
      raw.exec('DROP TRIGGER ledger_broken')
      raw.exec(`CREATE TRIGGER audit_broken BEFORE INSERT ON audit_log BEGIN SELECT RAISE(ABORT, 'forced failure'); END`)
      const keys = (await store().keys.list(account.id)).length
      expect((await ops.send('POST', '/console/api/keys', { account_id: account.id, name: 'never' })).status).toBe(500)
      expect((await ops.send('POST', `/console/api/accounts/${account.id}/credits`, { amount_usd: '1', note: 'lost' })).status).toBe(500)
      expect((await store().keys.list(account.id)).length).toBe(keys)
    } finally {
      raw.exec('DROP TRIGGER IF EXISTS ledger_broken')
      raw.exec('DROP TRIGGER IF EXISTS audit_broken')
      raw.close()
    }
    expect((await store().accounts.findById(account.id))!.balance).toBe(before)
    expect((await store().accounts.ledgerEntries(account.id)).some((entry) => entry.note === 'lost')).toBe(false)
  })

  test('a refused change (a debit below zero, a duplicate account) records nothing', async () => {
    expect(
      await rowsOf(async () =>
        expect(
          (await ops.send('POST', `/console/api/accounts/${account.id}/credits`, { amount_usd: '-1000', note: 'too much' })).status,
        ).toBe(400),
      ),
    ).toEqual([])
    expect(
      await rowsOf(async () => expect((await ops.send('POST', '/console/api/accounts', { name: 'globex' })).status).toBe(409)),
    ).toEqual([])
  })
})

describe('reading the audit log in the console', () => {
  test('an admin filters by actor, object and time, and pages back through older rows', async () => {
    const page = async (query: string) =>
      (await (await ops.get(`/console/api/audit?${query}`)).json()) as { entries: any[]; next: string | null }
    const keyRows = await page('object_type=key&actor=ops')
    expect(keyRows.entries.map((entry) => entry.action)).toEqual(['key.revoke', 'key.rotate', 'key.edit', 'key.create'])
    expect(keyRows.entries[0]).toMatchObject({
      object_type: 'key',
      actor: { kind: 'user', name: 'ops', address },
      before: { revoked_at: null },
    })
    const keyId = keyRows.entries[0].object_id as string
    expect((await page(`object_id=${keyId}`)).entries).toHaveLength(4)
    expect((await page(`since=${new Date(Date.now() + 60_000).toISOString()}`)).entries).toEqual([])

    // Two at a time, back to the first: the same rows as one page, each once.
    const all = (await page('actor=ops&limit=200')).entries.map((entry) => entry.id)
    const paged: number[] = []
    let next: string | null = ''
    while (next !== null) {
      const answer = await page(`actor=ops&limit=2${next ? `&before=${next}` : ''}`)
      paged.push(...answer.entries.map((entry) => entry.id))
      next = answer.next
    }
    expect(paged).toEqual(all)
    expect(all.length).toBeGreaterThan(8)
  })

  test("an account admin reads its own account's rows only; a viewer may not read it at all", async () => {
    const { store } = gateway.gateway.services
    const globex = (await store.accounts.findByName('globex'))!
    const annPassword = await addLogin(store, 'ann', 'account-admin', globex.id)
    const vicPassword = await addLogin(store, 'vic', 'viewer', globex.id)
    const ann = await signIn(gateway.url, 'ann', annPassword)
    const entries = ((await (await ann.get('/console/api/audit?limit=200')).json()) as { entries: any[] }).entries
    expect(entries.length).toBeGreaterThan(5)
    expect(entries.every((entry) => entry.account_id === globex.id)).toBe(true)
    // The gateway's own rows (the admin's sign-in, the other account's opening) are not there, nor can they be asked for.
    expect(entries.some((entry) => entry.action === 'account.create' && entry.object_id === String(globex.id))).toBe(true)
    expect((await ann.get(`/console/api/audit?account_id=${gateway.account.id}`)).status).toBe(404)
    const csv = await (await ann.get('/console/api/audit/csv')).text()
    expect(csv).toContain('account.credit')
    expect(csv).not.toContain(gateway.account.name)

    const vic = await signIn(gateway.url, 'vic', vicPassword)
    expect((await vic.get('/console/api/audit')).status).toBe(403)
    expect((await vic.get('/console/api/audit/csv')).status).toBe(403)
  })

  test('bad filters are a 400 that names the field', async () => {
    for (const [query, field] of [
      ['since=yesterday', 'since'],
      ['limit=0', 'limit'],
      ['before=nonsense', 'before'],
      [`actor=${'a'.repeat(201)}`, 'actor'],
    ]) {
      const response = await ops.get(`/console/api/audit?${query}`)
      expect(response.status).toBe(400)
      expect(((await response.json()) as { error: { field: string } }).error.field).toBe(field)
    }
  })

  test('the CSV is safe to open in a spreadsheet: a cell that would run as a formula starts with a quote', async () => {
    const { store } = gateway.gateway.services
    // A config file path is the operator's to name: one that starts like a formula, as a reload would record it.
    const dangerous = ['=HYPERLINK("http://evil.example","x")', '+1+1', '-2+3', '@SUM(A1)', '\tindent', '\rreturn']
    for (const [index, id] of dangerous.entries()) {
      await store.audit.record({
        at: Date.now() + index,
        action: 'config.reload',
        objectType: 'config',
        objectId: id,
        accountId: null,
        actor: { kind: 'system', id: null, label: 'signal:SIGHUP', address: null },
        before: null,
        after: null,
      })
    }
    const response = await ops.get('/console/api/audit/csv?object_type=config')
    expect(response.headers.get('content-type')).toBe('text/csv; charset=utf-8')
    expect(response.headers.get('content-disposition')).toMatch(/^attachment; filename="tollgate-audit-\d{4}-\d{2}-\d{2}\.csv"$/)
    const text = await response.text()
    const [header, ...lines] = text.trimEnd().split('\r\n')
    expect(header).toBe('at,action,object_type,object_id,account_id,actor_kind,actor_id,actor,address,before,after')
    // Newest first: the last recorded comes first. A carriage return inside a cell is quoted as RFC 4180 says.
    expect(text).toContain(`,config,"'\rreturn",`)
    expect(lines).toContain(`${lines[1]!.split(',')[0]},config.reload,config,'\tindent,,system,,signal:SIGHUP,,,`)
    for (const cell of ['"\'=HYPERLINK(""http://evil.example"",""x"")"', "'+1+1", "'-2+3", "'@SUM(A1)"])
      expect(text).toContain(`,config,${cell},`)
  })
})
