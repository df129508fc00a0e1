import { afterAll, beforeAll, expect, test } from 'bun:test'
import { writeFileSync } from 'node:fs'
import { parseConfig } from '../src/config/load.ts'
import { silentLogger } from '../src/core/logger.ts'
import { createAdminToken } from '../src/domain/admin-tokens.ts'
import type { KeyRecord } from '../src/domain/records.ts'
import { startGateway, type Gateway } from '../src/gateway.ts'
import { makeWorkspace, runCli } from './support/cli.ts'
import { addLogin, signIn } from './support/console.ts'
import { mockConfig, startTestGateway, type TestGateway } from './support/gateway.ts'
import { createTestDatabase } from './support/postgres.ts'
import { startTestRedis, type TestRedis } from './support/redis.ts'

/**
 * Every key change — create, edit, rotate, revoke — made through the console, the admin API or the CLI reaches
 * another instance's key cache by its announcement (Redis), not only by that instance's poll, which is stopped here.
 * Two gateway instances share one PostgreSQL and one Redis; the CLI is a process of its own on the same two.
 */
let database: Awaited<ReturnType<typeof createTestDatabase>>
let redis: TestRedis
let first: TestGateway
let second: Gateway
let workspace: { dir: string; config: string }

beforeAll(async () => {
  database = await createTestDatabase()
  redis = await startTestRedis()
  first = await startTestGateway({ database: database.url, config: { ...mockConfig, redis: redis.url } })
  second = await startGateway(
    parseConfig({ ...mockConfig, redis: redis.url, listen: { host: '127.0.0.1', port: 0 }, database: database.url }),
    silentLogger,
  )
  workspace = makeWorkspace()
  writeFileSync(
    workspace.config,
    `database: ${database.url}\nredis: ${redis.url}\nproviders: [{ name: mock, type: mock }]\n` +
      'models: [{ id: mock-1, provider: mock, price: { input: 1, output: 2 } }, { id: mock-fast, provider: mock, price: { input: 1, output: 2 } }]\n',
  )
}, 30_000)

afterAll(async () => {
  await second?.stop(500)
  await first?.stop()
  await redis?.stop()
  await database?.drop()
})

/** A change made through one front end: the key's ID, and its secret when the change made one. */
interface Made {
  id: string
  secret?: string
}

interface FrontEnd {
  create(): Promise<Made>
  edit(id: string, rpm: number): Promise<void>
  rotate(id: string): Promise<Made>
  revoke(id: string): Promise<void>
}

function overHttp(send: (method: string, path: string, body?: unknown) => Promise<Response>, prefix: string): FrontEnd {
  const ok = async (response: Promise<Response>) => {
    const answer = await response
    expect(answer.status).toBeLessThan(300)
    const body = (await answer.json()) as { id?: string; key?: { id: string }; secret?: string }
    return { id: body.key?.id ?? body.id!, secret: body.secret }
  }
  return {
    create: () => ok(send('POST', `${prefix}/keys`, { account_id: first.account.id })),
    edit: async (id, rpm) => void (await ok(send('PATCH', `${prefix}/keys/${id}`, { rpm }))),
    rotate: (id) => ok(send('POST', `${prefix}/keys/${id}/rotate`)),
    revoke: async (id) => void (await ok(send('POST', `${prefix}/keys/${id}/revoke`))),
  }
}

function cliChange(...args: string[]): Made {
  const run = runCli(['bun', 'src/main.ts'], [...args, '--json', '--config', workspace.config])
  expect({ code: run.code, stderr: run.stderr.replace(/^tollgate: database .*\n/, '') }).toEqual({ code: 0, stderr: '' })
  const { id, key } = run.json()
  return { id, secret: key }
}

const cli: FrontEnd = {
  create: async () => cliChange('key', 'create', '--account', first.account.name),
  edit: async (id, rpm) => void cliChange('key', 'edit', id, '--rpm', String(rpm)),
  rotate: async (id) => cliChange('key', 'rotate', id),
  revoke: async (id) => void cliChange('key', 'revoke', id),
}

/** Milliseconds until the second instance's key cache shows what `heard` looks for; undefined if it never does. */
async function untilHeard(heard: () => boolean): Promise<number | undefined> {
  const start = performance.now()
  while (performance.now() - start < 2000) {
    if (heard()) return Math.round(performance.now() - start)
    await Bun.sleep(2)
  }
  return undefined
}

async function spreadOf(frontEnd: FrontEnd) {
  const cache = second.services.keys
  const known = (secret: string): KeyRecord | undefined => cache.known(secret)
  const created = await frontEnd.create()
  const create = await untilHeard(() => known(created.secret!)?.id === created.id)
  await frontEnd.edit(created.id, 9)
  const edit = await untilHeard(() => known(created.secret!)?.rpm === 9)
  const rotated = await frontEnd.rotate(created.id)
  const rotate = await untilHeard(() => known(created.secret!) === undefined && known(rotated.secret!)?.id === created.id)
  await frontEnd.revoke(created.id)
  const revoke = await untilHeard(() => known(rotated.secret!)?.revokedAt !== null)
  return { create, edit, rotate, revoke }
}

test("every key change from the console, the admin API and the CLI reaches another instance's key cache without its poll", async () => {
  const { store } = first.gateway.services
  const admin = await signIn(first.url, 'spread-admin', await addLogin(store, 'spread-admin', 'admin'))
  const token = (await createAdminToken(store.adminTokens, 'spread', 'full')).secret
  const adminApi = overHttp(
    (method, path, body) =>
      fetch(`${first.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
    '/admin/api',
  )
  second.services.keys.stop() // no polling: only an announcement can tell the second instance
  try {
    const heard = {
      console: await spreadOf(overHttp(admin.send, '/console/api')),
      adminApi: await spreadOf(adminApi),
      cli: await spreadOf(cli),
    }
    console.log('milliseconds until the other instance knew of each change:', JSON.stringify(heard))
    const everyChange = { create: expect.any(Number), edit: expect.any(Number), rotate: expect.any(Number), revoke: expect.any(Number) }
    expect(heard).toEqual({ console: everyChange, adminApi: everyChange, cli: everyChange })
  } finally {
    await second.services.keys.start()
  }
}, 60_000)
