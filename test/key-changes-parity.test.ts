import { afterAll, beforeAll, expect, test } from 'bun:test'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createAdminToken } from '../src/domain/admin-tokens.ts'
import { hashKey } from '../src/domain/keys.ts'
import { makeWorkspace, runCli } from './support/cli.ts'
import { addLogin, type ConsoleClient, signIn } from './support/console.ts'
import { startTestGateway, type TestGateway } from './support/gateway.ts'

/**
 * The console, the admin API and the CLI make the same key changes through one KeyService, so the same change gets
 * the same answer from each: the same key afterwards, the same refusal (bad value, naming the same field; a revoked
 * key, a conflict; a missing key) — including a change to a revoked key, where the console's docs once said 400 while
 * both APIs answered 409 and the CLI could not make the change at all.
 */
let gateway: TestGateway
let workspace: { dir: string; config: string }
let admin: ConsoleClient
let adminToken: string

beforeAll(async () => {
  workspace = makeWorkspace()
  const database = join(workspace.dir, 'tollgate.db')
  gateway = await startTestGateway({ databasePath: database })
  writeFileSync(
    workspace.config,
    `database: sqlite:${database}\nproviders: [{ name: mock, type: mock }]\n` +
      'models:\n  - { id: mock-1, provider: mock, price: { input: 1, output: 2 } }\n  - { id: mock-fast, provider: mock, price: { input: 0.1, output: 0.2 } }\n',
  )
  const { store } = gateway.gateway.services
  admin = await signIn(gateway.url, 'parity-admin', await addLogin(store, 'parity-admin', 'admin'))
  adminToken = (await createAdminToken(store.adminTokens, 'parity', 'full')).secret
}, 30_000)

afterAll(() => gateway.stop())

/** A change's fields as the console and the admin API name them; the CLI's flags are derived from them. */
type Fields = {
  name?: string | null
  models?: string[] | null
  rpm?: number | null
  budget_usd?: string | null
  expires_at?: string | null
  allowed_ips?: string[] | null
}

/** What a user can tell of an answer, whoever gave it. */
interface Answer {
  result: 'ok' | 'invalid' | 'conflict' | 'not_found'
  /** The field a refusal names (the console API's name). */
  field?: string
  key?: Record<string, unknown>
  secret?: string
}

interface FrontEnd {
  create(fields: Fields): Promise<Answer>
  edit(id: string, fields: Fields): Promise<Answer>
  rotate(id: string): Promise<Answer>
  revoke(id: string): Promise<Answer>
  /** Until this instance knows of the change: at once for its own routes; a CLI process's change at its next poll (no Redis here). */
  heard(): Promise<void>
}

/** The parts of a key a change may touch (not its ID, times or spend, which differ between keys by nature). */
function keyState(key: Record<string, unknown>) {
  const { name, models, rpm, tpm, concurrency, budget_usd, expires_at, allowed_ips, status } = key
  return { name, models, rpm, tpm, concurrency, budget_usd, expires_at, allowed_ips, status }
}

async function httpAnswer(response: Response): Promise<Answer> {
  const body = (await response.json()) as Record<string, any>
  if (response.status === 200 || response.status === 201) {
    const key = body.key && typeof body.key === 'object' ? body.key : body
    return { result: 'ok', key: keyState(key), secret: body.secret }
  }
  const result = ({ 400: 'invalid', 404: 'not_found', 409: 'conflict' } as const)[response.status as 400 | 404 | 409]
  if (!result) throw new Error(`unexpected ${response.status}: ${JSON.stringify(body)}`)
  return { result, ...(body.error.field && { field: body.error.field }) }
}

function overHttp(send: (method: string, path: string, body?: unknown) => Promise<Response>, prefix: string): FrontEnd {
  return {
    create: async (fields) => httpAnswer(await send('POST', `${prefix}/keys`, { account_id: gateway.account.id, ...fields })),
    edit: async (id, fields) => httpAnswer(await send('PATCH', `${prefix}/keys/${id}`, fields)),
    rotate: async (id) => httpAnswer(await send('POST', `${prefix}/keys/${id}/rotate`)),
    revoke: async (id) => httpAnswer(await send('POST', `${prefix}/keys/${id}/revoke`)),
    heard: async () => {},
  }
}

const flagNames: Record<string, string> = { budget: 'budget_usd', expires: 'expires_at', 'allowed-ips': 'allowed_ips' }

function flagsOf(fields: Fields): string[] {
  const flags: string[] = []
  if (fields.name !== undefined) flags.push('--name', fields.name ?? '')
  if (fields.models !== undefined) flags.push('--models', fields.models?.join(',') ?? 'all')
  if (fields.rpm !== undefined) flags.push('--rpm', String(fields.rpm ?? 'none'))
  if (fields.budget_usd !== undefined) flags.push('--budget', fields.budget_usd ?? 'none')
  if (fields.expires_at !== undefined) flags.push('--expires', fields.expires_at ?? 'none')
  if (fields.allowed_ips !== undefined) flags.push('--allowed-ips', fields.allowed_ips?.join(',') ?? 'any')
  return flags
}

function cliAnswer(args: string[]): Answer {
  const run = runCli(['bun', 'src/main.ts'], [...args, '--json', '--config', workspace.config])
  if (run.code === 0) {
    const { key: secret, ...key } = run.json()
    return { result: 'ok', key: keyState(key), ...(typeof secret === 'string' && { secret }) }
  }
  if (run.code === 3) return { result: 'not_found' }
  if (run.code !== 2) throw new Error(`unexpected exit ${run.code}: ${run.stderr}`)
  if (run.stderr.includes('is revoked')) return { result: 'conflict' }
  const flag = /tollgate: --([\w-]+)/.exec(run.stderr)?.[1]
  return { result: 'invalid', ...(flag && { field: flagNames[flag] ?? flag }) }
}

const cli: FrontEnd = {
  create: async (fields) => cliAnswer(['key', 'create', '--account', gateway.account.name, ...flagsOf(fields)]),
  edit: async (id, fields) => cliAnswer(['key', 'edit', id, ...flagsOf(fields)]),
  rotate: async (id) => cliAnswer(['key', 'rotate', id]),
  revoke: async (id) => cliAnswer(['key', 'revoke', id]),
  heard: () => gateway.gateway.services.keys.refresh(),
}

const status = async (secret: string) =>
  (await fetch(`${gateway.baseUrl}/models`, { headers: { authorization: `Bearer ${secret}` } })).status

/** One life of a key through one front end: every answer in order, and what the old and new secrets get after a rotation. */
async function lifeOfAKey(frontEnd: FrontEnd) {
  const future = new Date(Date.now() + 86_400_000 * 30).toISOString().replace(/T.*/, 'T00:00:00.000Z')
  const answers: Answer[] = []
  const note = (answer: Answer) => {
    const { secret: _, ...seen } = answer
    answers.push(seen)
    return answer
  }
  note(await frontEnd.create({ budget_usd: '0' }))
  note(await frontEnd.create({ models: ['no-such-model'] }))
  const created = note(
    await frontEnd.create({
      name: ' parity ',
      models: ['mock-1', 'mock-1'],
      rpm: 5,
      budget_usd: '2.5',
      expires_at: future,
      allowed_ips: [' 10.0.0.0/8', '2001:db8::/32', '10.0.0.0/8'],
    }),
  )
  const id = (await gateway.gateway.services.store.keys.findByHash(hashKey(created.secret!)))!.id
  for (const bad of [
    {},
    { budget_usd: '0' },
    { expires_at: '2001-01-01T00:00:00Z' },
    { models: ['nope'] },
    { rpm: 0 },
    { rpm: 2_000_000_000 },
    { expires_at: 'soon' },
    { allowed_ips: ['10.0.0.1', '10.0.0.300'] },
    { allowed_ips: ['::/129'] },
  ]) {
    note(await frontEnd.edit(id, bad))
  }
  note(await frontEnd.edit(id, { name: 'renamed', rpm: 9, models: null, budget_usd: null, expires_at: null, allowed_ips: null }))
  const rotated = note(await frontEnd.rotate(id))
  await frontEnd.heard()
  const secrets = { old: await status(created.secret!), rotated: await status(rotated.secret!), revoked: 0 }
  note(await frontEnd.revoke(id))
  await frontEnd.heard()
  secrets.revoked = await status(rotated.secret!)
  note(await frontEnd.revoke(id))
  note(await frontEnd.edit(id, { rpm: 3 }))
  note(await frontEnd.rotate(id))
  note(await frontEnd.edit('key_missing', { rpm: 3 }))
  note(await frontEnd.rotate('key_missing'))
  note(await frontEnd.revoke('key_missing'))
  return { answers, secrets }
}

test('the console, the admin API and the CLI give the same answer to the same key change', async () => {
  const adminApi = overHttp(
    (method, path, body) =>
      fetch(`${gateway.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
    '/admin/api',
  )
  const viaConsole = await lifeOfAKey(overHttp(admin.send, '/console/api'))
  const viaAdminApi = await lifeOfAKey(adminApi)
  const viaCli = await lifeOfAKey(cli)

  const { answers } = viaConsole
  expect(answers.map((answer) => [answer.result, answer.field])).toEqual([
    ['invalid', 'budget_usd'],
    ['invalid', 'models'],
    ['ok', undefined],
    ['invalid', undefined],
    ['invalid', 'budget_usd'],
    ['invalid', 'expires_at'],
    ['invalid', 'models'],
    ['invalid', 'rpm'],
    ['invalid', 'rpm'],
    ['invalid', 'expires_at'],
    ['invalid', 'allowed_ips'],
    ['invalid', 'allowed_ips'],
    ['ok', undefined],
    ['ok', undefined],
    ['ok', undefined],
    ['ok', undefined],
    ['conflict', undefined],
    ['conflict', undefined], // a revoked key cannot change: 409, not 400
    ['not_found', undefined],
    ['not_found', undefined],
    ['not_found', undefined],
  ])
  expect(answers[2]!.key).toMatchObject({
    name: 'parity',
    models: ['mock-1'],
    rpm: 5,
    budget_usd: '2.50',
    allowed_ips: ['10.0.0.0/8', '2001:db8::/32'],
    status: 'active',
  })
  expect(answers[12]!.key).toMatchObject({ name: 'renamed', models: null, rpm: 9, budget_usd: null, expires_at: null, allowed_ips: null })
  expect(answers[14]!.key).toMatchObject({ status: 'revoked' })
  expect(viaConsole.secrets).toEqual({ old: 401, rotated: 200, revoked: 401 })
  expect(viaAdminApi).toEqual(viaConsole)
  expect(viaCli).toEqual(viaConsole)
}, 120_000)

test("the console's and the admin API's documentation say what both answer for a change to a revoked key: 409", async () => {
  const spec = (await (await fetch(`${gateway.url}/docs/json`)).json()) as {
    paths: Record<string, Record<string, { description?: string; responses: object }>>
  }
  for (const prefix of ['/console/api', '/admin/api']) {
    for (const [path, method] of [
      [`${prefix}/keys/{id}`, 'patch'],
      [`${prefix}/keys/{id}/rotate`, 'post'],
    ] as const) {
      const operation = spec.paths[path]![method]!
      expect({ path, method, statuses: Object.keys(operation.responses) }).toEqual({
        path,
        method,
        statuses: expect.arrayContaining(['409']),
      })
      expect(operation.description).toContain('revoked key cannot')
      expect(operation.description).toContain('(409)')
      expect(operation.description).not.toContain('(400)')
    }
  }
})
