import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import { readFileSync, writeFileSync } from 'node:fs'
import { userInfo } from 'node:os'
import { join } from 'node:path'
import OpenAI, { toFile } from 'openai'
import { openSqliteStore } from '../src/db/sqlite/store.ts'
import type { AuditRow } from '../src/domain/audit/records.ts'
import type { Store } from '../src/domain/repositories.ts'
import { auditRowsOf } from './support/audit.ts'
import { makeWorkspace, runCli, startServe } from './support/cli.ts'
import { chatCompletion } from './support/openai-upstream.ts'
import { jsonReply, startUpstream } from './support/upstream.ts'

/**
 * The CLI's changes and config reloads, each one audit row naming the OS user who ran the command; then the whole
 * table, `tollgate audit` and the console's CSV scanned for every secret, password and hash this run made: none is
 * there. Everything runs as an operator would: a real `serve`, the CLI beside it on the same SQLite file.
 */
const cli = ['bun', 'src/main.ts']
const operator = `cli:${userInfo().username}`
const secrets = new Set<string>()
const remember = (...values: string[]) => values.forEach((value) => secrets.add(value))

const oldUpstreamKey = `sk-upstream-${crypto.randomUUID()}`
const newUpstreamKey = `sk-upstream-${crypto.randomUUID()}`
const oldClientSecret = `oidc-secret-${crypto.randomUUID()}`
const newClientSecret = `oidc-secret-${crypto.randomUUID()}`
const databasePassword = `pg-password-${crypto.randomUUID()}`
remember(oldUpstreamKey, newUpstreamKey, oldClientSecret, newClientSecret, databasePassword)

// A slow upstream: a batch is still running when the operator cancels it.
const upstream = startUpstream(async (request) => {
  await Bun.sleep(500)
  return jsonReply(chatCompletion(request))
})
const yaml = (upstreamKey: string, clientSecret: string, price: number) => `providers:
  - { name: mock, type: mock }
  - { name: upstream, type: openai, base_url: "${upstream.url}/v1", api_key: "${upstreamKey}" }
models:
  - { id: mock-1, provider: mock, price: { input: ${price}, output: 2 }, max_output_tokens: 256 }
  - { id: slow-1, provider: upstream, price: { input: 1, output: 2 }, max_output_tokens: 256 }
tasks: { concurrency: 1, per_account: 1 }
auth:
  oidc: { issuer: "http://127.0.0.1:9", client_id: tollgate, client_secret: "${clientSecret}" }
`

let workspace: { dir: string; config: string }
let store: Store
let server: Awaited<ReturnType<typeof startServe>>
const run = (...args: string[]) => runCli(cli, [...args, '--config', workspace.config])
function runWithStdin(stdin: string, ...args: string[]) {
  const result = Bun.spawnSync([...cli, ...args, '--config', workspace.config], {
    stdin: new TextEncoder().encode(stdin),
    stdout: 'pipe',
    stderr: 'pipe',
  })
  return { code: result.exitCode, stdout: result.stdout.toString(), stderr: result.stderr.toString() }
}

/** The one row a command left, after checking it succeeded. */
async function onlyRow(command: () => { code: number | null; stderr: string }): Promise<AuditRow> {
  const rows = await auditRowsOf(store, async () => {
    const result = command()
    expect({ code: result.code, stderr: result.code === 0 ? '' : result.stderr }).toEqual({ code: 0, stderr: '' })
  })
  expect(rows).toHaveLength(1)
  return rows[0]!
}

const byOperator = { kind: 'cli', id: userInfo().username, label: operator, address: null }

beforeAll(async () => {
  workspace = makeWorkspace(yaml(oldUpstreamKey, oldClientSecret, 1))
  expect(run('migrate').code).toBe(0)
  store = openSqliteStore(join(workspace.dir, 'tollgate.db'))
})

afterAll(async () => {
  server?.process.kill('SIGKILL')
  void upstream.stop()
  await store?.close()
})

describe('each change through the CLI is one audit row naming its OS user', () => {
  let keyId: string

  test('account create and credit', async () => {
    const opened = await onlyRow(() => run('account', 'create', 'acme', '--balance', '10'))
    expect(opened).toMatchObject({
      action: 'account.create',
      objectType: 'account',
      actor: byOperator,
      after: { name: 'acme', balance_usd: '10.00' },
    })
    expect(await onlyRow(() => run('account', 'credit', 'acme', '-2.5', '--note', 'correction'))).toMatchObject({
      action: 'account.debit',
      actor: byOperator,
      before: { balance_usd: '10.00' },
      after: { balance_usd: '7.50', amount_usd: '-2.50', note: 'correction' },
    })
  })

  test('key create, edit, rotate, revoke', async () => {
    let secret = ''
    const created = await onlyRow(() => {
      const result = run('key', 'create', '--account', 'acme', '--name', 'laptop', '--json')
      secret = result.json().key
      return result
    })
    keyId = created.objectId!
    remember(secret)
    expect(created).toMatchObject({ action: 'key.create', actor: byOperator, after: { name: 'laptop' } })
    expect(await onlyRow(() => run('key', 'edit', keyId, '--tpm', '5000'))).toMatchObject({
      action: 'key.edit',
      actor: byOperator,
      before: { tpm: null },
      after: { tpm: 5000 },
    })
    const rotated = await onlyRow(() => {
      const result = run('key', 'rotate', keyId, '--json')
      remember(result.json().key)
      return result
    })
    expect(rotated).toMatchObject({ action: 'key.rotate', actor: byOperator, after: { secret: 'rotated' } })
    expect(await onlyRow(() => run('key', 'revoke', keyId))).toMatchObject({
      action: 'key.revoke',
      actor: byOperator,
      before: { revoked_at: null },
    })
  })

  test('user create, password, delete; admin-token create and revoke', async () => {
    remember('the-first-password-of-root', 'the-second-password-of-root')
    expect(
      await onlyRow(() => runWithStdin('the-first-password-of-root\n', 'user', 'create', 'root', '--admin', '--password-stdin')),
    ).toMatchObject({
      action: 'user.create',
      actor: byOperator,
      after: { name: 'root', role: 'admin', account_id: null, password: 'set' },
    })
    remember((await store.users.findByName('root'))!.passwordHash)
    expect(
      await onlyRow(() => runWithStdin('the-second-password-of-root\n', 'user', 'password', 'root', '--password-stdin')),
    ).toMatchObject({
      action: 'user.password',
      actor: byOperator,
      after: { password: 'rotated' },
    })
    remember((await store.users.findByName('root'))!.passwordHash)
    const generated = await onlyRow(() => {
      const result = run('user', 'create', 'temp', '--account', 'acme', '--json')
      remember(result.json().password)
      return result
    })
    remember((await store.users.findByName('temp'))!.passwordHash)
    expect(generated).toMatchObject({ action: 'user.create', after: { name: 'temp', role: 'viewer' } })
    expect(await onlyRow(() => run('user', 'delete', 'temp'))).toMatchObject({
      action: 'user.delete',
      actor: byOperator,
      before: { name: 'temp' },
      after: null,
    })

    let tokenId = ''
    const token = await onlyRow(() => {
      const result = run('admin-token', 'create', 'siem', '--scope', 'full', '--json')
      remember(result.json().token)
      tokenId = result.json().id
      return result
    })
    expect(token).toMatchObject({
      action: 'admin-token.create',
      objectType: 'admin-token',
      objectId: tokenId,
      accountId: null,
      actor: byOperator,
      after: { name: 'siem', scope: 'full', revoked_at: null },
    })
    const revoked = await onlyRow(() => run('admin-token', 'revoke', tokenId))
    expect(revoked).toMatchObject({
      action: 'admin-token.revoke',
      objectId: tokenId,
      before: { revoked_at: null },
      after: { revoked_at: expect.any(String) },
    })
  })

  test('task cancel, by the operator', async () => {
    server = await startServe(cli, workspace.config)
    let secret = ''
    await onlyRow(() => {
      const result = run('key', 'create', '--account', 'acme', '--name', 'batch', '--json')
      secret = result.json().key
      return result
    })
    remember(secret)
    const client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: secret, maxRetries: 0 })
    const lines = Array.from({ length: 40 }, (_, index) =>
      JSON.stringify({
        custom_id: `n${index}`,
        method: 'POST',
        url: '/v1/chat/completions',
        body: { model: 'slow-1', messages: [{ role: 'user', content: 'a long story' }] },
      }),
    )
    const file = await client.files.create({ file: await toFile(Buffer.from(lines.join('\n')), 'in.jsonl'), purpose: 'batch' })
    const batch = await client.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' })
    expect(await onlyRow(() => run('task', 'cancel', batch.id))).toMatchObject({
      action: 'task.cancel',
      objectType: 'task',
      objectId: batch.id,
      actor: byOperator,
      after: { status: 'cancelling' },
    })
  }, 30_000)

  test('config reloads: `tollgate reload` names its OS user, a bare SIGHUP names the signal; secrets read "rotated"', async () => {
    writeFileSync(
      workspace.config,
      readFileSync(workspace.config, 'utf8').replace(yaml(oldUpstreamKey, oldClientSecret, 1), yaml(newUpstreamKey, newClientSecret, 3)),
    )
    const before = (await store.audit.list({ action: 'config.reload' }, 10)).length
    expect(run('reload').code).toBe(0)
    const reloads = async (count: number) => {
      for (let tries = 0; tries < 100 && (await store.audit.list({ action: 'config.reload' }, 10)).length < count; tries++)
        await Bun.sleep(50)
      return store.audit.list({ action: 'config.reload' }, 10)
    }
    const [reload] = await reloads(before + 1)
    expect(reload).toMatchObject({
      objectType: 'config',
      objectId: workspace.config,
      accountId: null,
      actor: byOperator,
      before: { 'providers[upstream].apiKey': 'set', 'models[mock-1].price.input': 1_000_000_000, 'auth.oidc.clientSecret': 'set' },
      after: { 'providers[upstream].apiKey': 'rotated', 'models[mock-1].price.input': 3_000_000_000, 'auth.oidc.clientSecret': 'rotated' },
    })
    expect(Object.keys(reload!.after!).sort()).toEqual([
      'auth.oidc.clientSecret',
      'models[mock-1].price.cacheWrite',
      'models[mock-1].price.cachedInput',
      'models[mock-1].price.input',
      'providers[upstream].apiKey',
    ])

    // A reload that changes a setting only a restart applies says so; one sent by another hand names the signal.
    writeFileSync(workspace.config, readFileSync(workspace.config, 'utf8').replace('tasks: { concurrency: 1', 'tasks: { concurrency: 2'))
    server.process.kill('SIGHUP')
    const [signalled] = await reloads(before + 2)
    expect(signalled).toMatchObject({
      actor: { kind: 'system', id: null, label: 'signal:SIGHUP', address: null },
      before: { 'tasks.concurrency': 1 },
      after: { 'tasks.concurrency': 2, restart_needed_for: ['tasks'] },
    })
  }, 30_000)

  test('`tollgate audit` reads it back, filtered, as a table or JSON', () => {
    const json = run('audit', '--actor', operator, '--object', 'key', '--json')
    expect(json.code).toBe(0)
    expect(json.json().map((entry: { action: string }) => entry.action)).toEqual([
      'key.create',
      'key.revoke',
      'key.rotate',
      'key.edit',
      'key.create',
    ])
    expect(json.json()[0]).toMatchObject({ object_type: 'key', actor: { kind: 'cli', name: operator, address: null } })
    const text = run('audit', '--object-id', keyId, '--limit', '3')
    expect(text.stdout.split('\n')[0]).toMatch(/^TIME\s+ACTOR\s+ADDRESS\s+ACTION\s+OBJECT\s+CHANGES$/)
    expect(text.stdout).toContain(`key.rotate  key ${keyId}  secret: rotated`)
    expect(text.stdout).toContain('tpm: - → 5000')
    expect(run('audit', '--since', 'last tuesday').stderr).toContain('--since must be an ISO-8601 time')
    expect(run('audit', '--account', 'nobody').code).toBe(3)
  })
})

describe('no secret, password or hash anywhere in the audit log', () => {
  test("the whole table, `tollgate audit --json` and the console's CSV hold none of what this run made secret", async () => {
    // Sign in and fail to, so sign-in rows are in what is scanned too.
    const signIn = (password: string) =>
      fetch(`${server.url}/console/api/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: 'root', password }),
      })
    remember('a-wrong-password-for-root')
    expect((await signIn('a-wrong-password-for-root')).status).toBe(401)
    const signedIn = await signIn('the-second-password-of-root')
    expect(signedIn.status).toBe(200)
    const cookie = signedIn.headers.get('set-cookie')!.split(';')[0]!
    const csv = await (await fetch(`${server.url}/console/api/audit/csv`, { headers: { cookie } })).text()

    const database = new Database(join(workspace.dir, 'tollgate.db'), { readonly: true })
    const table = JSON.stringify(database.query('SELECT * FROM audit_log').all())
    // Everything stored that is derived from a secret: key hashes and shown prefixes, admin token hashes, password hashes.
    for (const row of database.query('SELECT hash, prefix FROM api_keys UNION ALL SELECT hash, prefix FROM admin_tokens').all() as {
      hash: string
      prefix: string
    }[]) {
      remember(row.hash, row.prefix)
    }
    // The scan would see them: the tables they belong to hold them (a control, so the list cannot be empty of meaning).
    const keyTables = JSON.stringify([
      database.query('SELECT * FROM api_keys').all(),
      database.query('SELECT * FROM admin_tokens').all(),
      database.query('SELECT * FROM users').all(),
    ])
    expect([...secrets].filter((secret) => keyTables.includes(secret)).length).toBeGreaterThanOrEqual(6)
    database.close()
    const listed = run('audit', '--limit', '100000', '--json').stdout

    expect(table.length).toBeGreaterThan(2000)
    expect(csv.split('\r\n').length).toBeGreaterThan(15)
    expect(secrets.size).toBeGreaterThan(20)
    for (const [where, text] of [
      ['table', table],
      ['tollgate audit', listed],
      ['CSV', csv],
    ] as const) {
      expect({ where, found: [...secrets].filter((secret) => text.includes(secret)) }).toEqual({ where, found: [] })
    }
    // And what was recorded is there: the sign-ins are rows, the reloads' secrets read "rotated".
    expect(csv).toContain('user.sign-in-failed')
    expect(csv).toContain('""providers[upstream].apiKey"":""rotated""')
  }, 30_000)
})
