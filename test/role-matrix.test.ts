import { alertEvents } from '../src/domain/alerts/records.ts'
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import Anthropic from '@anthropic-ai/sdk'
import { Elysia } from 'elysia'
import OpenAI from 'openai'
import { createApp } from '../src/app.ts'
import { withAdminToken } from '../src/console/admin/gate.ts'
import { createAdminToken } from '../src/domain/admin-tokens.ts'
import { createKey } from '../src/domain/keys.ts'
import type { AccountRecord } from '../src/domain/records.ts'
import { permissions, permissionsOf, userRoles } from '../src/domain/roles.ts'
import { hashPassword } from '../src/domain/users.ts'
import { pollUntil } from './support/batches.ts'
import { startTestGateway, type TestGateway } from './support/gateway.ts'
import {
  adminTokenCaller,
  type Caller,
  consoleCaller,
  fingerprint,
  type Matrix,
  matrixPassword,
  nobody,
  readmeName,
  readReadmeMatrix,
} from './support/role-matrix.ts'

/**
 * Every console and admin-API route of the running app, enumerated from Elysia's own route list (so a new route is
 * walked without anyone adding it here), called by every role of two accounts and by both kinds of admin token, and
 * answered as the README's role matrix says: 403 where the role may not, 404 for another account's object, 2xx
 * otherwise — and never with another account's data, and a refused change changes nothing.
 */
let gateway: TestGateway
let acme: AccountRecord
let globex: AccountRecord
let matrix: Matrix
const tasks: Record<'acme' | 'globex', string> = { acme: '', globex: '' }
/** What may never reach a caller of the other account: its name (every object of it is named after it) and its ids. */
const secrets: Record<'acme' | 'globex', Set<string>> = { acme: new Set(), globex: new Set() }
let callers: Caller[]
let made = 0

/** Open to anyone by design: signing in, and the unknown-route answer. Opening another route must be a change here. */
const openRoutes = ['POST /console/api/session', 'GET /console/api/sign-in-methods', 'ALL /console/api/*']

beforeAll(async () => {
  matrix = readReadmeMatrix()
  gateway = await startTestGateway({ balanceUsd: '50' })
  const { store } = gateway.gateway.services
  acme = await gateway.createAccount('acme-matrix', '10')
  globex = await gateway.createAccount('globex-matrix', '10')
  for (const [side, account] of [
    ['acme', acme],
    ['globex', globex],
  ] as const) {
    const { secret, record } = await createKey(store.keys, { accountId: account.id, name: `${account.name}-key` })
    secrets[side].add(account.name).add(record.id).add(record.prefix)
    await new OpenAI({ baseURL: gateway.baseUrl, apiKey: secret, maxRetries: 0 }).chat.completions.create({
      model: 'mock-1',
      messages: [{ role: 'user', content: 'hi' }],
    })
    const anthropic = new Anthropic({ baseURL: gateway.url, apiKey: secret, maxRetries: 0 })
    const batch = await anthropic.messages.batches.create({
      requests: [
        { custom_id: `${account.name}-item`, params: { model: 'mock-1', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] } },
      ],
    })
    await pollUntil(
      () => anthropic.messages.batches.retrieve(batch.id),
      (value) => value.processing_status === 'ended',
    )
    tasks[side] = batch.id
    secrets[side].add(batch.id)
  }
  await gateway.settled()
  const hash = await hashPassword(matrixPassword)
  const read = await createAdminToken(store.adminTokens, 'matrix-read', 'read')
  const full = await createAdminToken(store.adminTokens, 'matrix-full', 'full')
  callers = [
    consoleCaller(store, hash, 'admin', 'admin'),
    ...userRoles
      .filter((role) => role !== 'admin')
      .flatMap((role) => [acme, globex].map((account) => consoleCaller(store, hash, `${role} of ${account.name}`, role, account))),
    adminTokenCaller('read token', 'viewer', read.secret),
    adminTokenCaller('full token', 'admin', full.secret),
    nobody,
  ]
}, 60_000)

afterAll(() => gateway?.stop())

interface Route {
  method: string
  path: string
  permission?: string
  query: string[]
  hasBody: boolean
}

function listRoutes(): Route[] {
  return createApp(gateway.gateway.services)
    .routes.filter((route) => /^\/(console|admin)\/api\//.test(route.path))
    .map((route) => {
      const hooks = route.hooks as { detail?: Record<string, unknown>; query?: { properties?: object }; body?: unknown }
      return {
        method: route.method,
        path: route.path,
        permission: hooks.detail?.['x-permission'] as string | undefined,
        query: Object.keys(hooks.query?.properties ?? {}),
        hasBody: hooks.body !== undefined,
      }
    })
}

/** A fresh object of acme's behind each kind of ID, so that a change made by one probe never decides the next one's answer. */
async function acmeObject(path: string): Promise<string> {
  const { store } = gateway.gateway.services
  const now = Date.now()
  if (path.includes('/keys/')) {
    const { record } = await createKey(store.keys, { accountId: acme.id, name: `acme-matrix-key-${++made}` })
    secrets.acme.add(record.id).add(record.prefix)
    return record.id
  }
  if (path.includes('/users/')) {
    const user = await store.users.create({
      name: `acme-matrix-person-${++made}`,
      role: 'viewer',
      accountId: acme.id,
      passwordHash: '',
      createdAt: now,
      updatedAt: now,
    })
    return String(user.id)
  }
  if (path.includes('/tasks/')) return tasks.acme
  if (path.includes('/projects/')) {
    const project = await store.budgets.createProject({
      accountId: acme.id,
      name: `acme-matrix-project-${++made}`,
      models: null,
      rpm: null,
      tpm: null,
      concurrency: null,
      allowedIps: null,
      createdAt: now,
      updatedAt: now,
    })
    return String(project.id)
  }
  if (path.includes('/budgets/')) {
    const budget = await store.budgets.createBudget({
      accountId: acme.id,
      scope: 'account',
      projectId: null,
      keyId: null,
      amount: 5_000_000_000,
      period: 'month',
      timeZone: 'UTC',
      createdAt: now,
      updatedAt: now,
    })
    return String(budget.id)
  }
  if (path.includes('/webhooks/')) {
    const webhook = {
      id: `wh_matrix${++made}`,
      accountId: acme.id,
      projectId: null,
      url: 'https://hooks.example.com/acme-matrix',
      secret: `whsec_matrix${made}`,
      events: [...alertEvents],
      balanceBelow: null,
      expiryDays: 7,
      budgetPercents: [50],
      createdAt: now,
      updatedAt: now,
    }
    await store.webhooks.insert(webhook)
    secrets.acme.add(webhook.id).add(webhook.secret)
    return webhook.id
  }
  return String(acme.id)
}

/** A valid body for each route that takes one; a new route with a body needs its line here. */
const bodies: Record<string, () => unknown> = {
  'POST /console/api/session/password': () => ({ current_password: matrixPassword, new_password: 'another-matrix-password' }),
  'POST /accounts': () => ({ name: `opened-${++made}`, balance_usd: '1' }),
  'POST /accounts/:id/credits': () => ({ amount_usd: '0.01', note: 'the role matrix' }),
  'POST /keys': () => ({ account_id: acme.id, name: `acme-matrix-made-${++made}` }),
  'POST /webhooks': () => ({ account_id: acme.id, url: `https://hooks.example.com/acme-matrix-${++made}` }),
  'PATCH /keys/:id': () => ({ rpm: 100 }),
  'POST /projects': () => ({ account_id: acme.id, name: `acme-matrix-project-${++made}` }),
  'PATCH /projects/:id': () => ({ rpm: 100 }),
  'POST /budgets': () => ({ account_id: acme.id, scope: 'account', amount_usd: '5', period: 'month' }),
  'PATCH /budgets/:id': () => ({ amount_usd: '6' }),
  'POST /console/api/users': () => ({ name: `acme-matrix-made-${++made}`, role: 'viewer', account_id: acme.id }),
  'POST /console/api/users/:id/password': () => ({}),
}
const bodyFor = (route: Route) =>
  bodies[`${route.method} ${route.path}`] ?? bodies[`${route.method} ${route.path.replace(/^\/(console|admin)\/api/, '')}`]

/** One request as the route's variants: as it is, and with each of acme's ids its query takes. */
function variants(route: Route): { query: string; acmeInQuery: boolean }[] {
  const found = [{ query: '', acmeInQuery: false }]
  if (route.query.includes('account_id')) found.push({ query: `account_id=${acme.id}`, acmeInQuery: true })
  if (route.query.includes('key_id'))
    found.push({ query: `key_id=${[...secrets.acme].find((id) => id.startsWith('key_'))}`, acmeInQuery: true })
  return found
}

function expectedStatus(caller: Caller, route: Route, touchesAcme: boolean): number | 'ok' {
  if (!caller.role) return 401
  const allowed = matrix.get(route.permission!)?.[caller.role]
  if (allowed === undefined) throw new Error(`the README's role matrix has no row for ${route.permission}`)
  if (!allowed) return 403
  return touchesAcme && caller.accountId !== undefined && caller.accountId !== acme.id ? 404 : 'ok'
}

describe('the role matrix', () => {
  test("the README's table covers exactly the permissions, and says what domain/roles.ts grants", () => {
    expect([...matrix.keys()].sort()).toEqual([...permissions].sort())
    for (const role of userRoles) expect(permissionsOf(role)).toEqual(permissions.filter((permission) => matrix.get(permission)![role]))
  })

  test('every console and admin-API route declares the permission the README lists it under, or is one of the few open ones', () => {
    const routes = listRoutes()
    expect(routes.length).toBeGreaterThan(35)
    const undeclared = routes.filter((route) => route.permission === undefined).map((route) => `${route.method} ${route.path}`)
    expect(undeclared.sort()).toEqual([...openRoutes].sort())
    const listed = new Map([...matrix].flatMap(([permission, row]) => row.routes.map((route) => [route, permission] as const)))
    const declared = routes
      .filter((route) => route.permission)
      .map((route) => [
        `${route.method} ${route.path}`,
        listed.get(readmeName(route.method, route.path)) ?? 'not in the README',
        route.permission,
      ])
    expect(declared.filter(([, readme, permission]) => readme !== permission)).toEqual([])
    // Nothing the README lists is missing from the app.
    const names = new Set(routes.map((route) => readmeName(route.method, route.path)))
    expect([...listed.keys()].filter((name) => !names.has(name))).toEqual([])
  })

  test('a viewer is read only: every permission it holds is for reading, but its own session', () => {
    for (const route of listRoutes().filter((each) => each.permission && each.method !== 'GET' && each.permission !== 'session')) {
      expect({ route: `${route.method} ${route.path}`, viewer: matrix.get(route.permission!)!.viewer }).toEqual({
        route: `${route.method} ${route.path}`,
        viewer: false,
      })
    }
  })

  test("every route × every role: 403 where the role may not, 404 for another account's object, never its data", async () => {
    const { store } = gateway.gateway.services
    const taskIds = Object.values(tasks)
    const failures: string[] = []
    let probes = 0
    for (const route of listRoutes().filter((each) => each.permission)) {
      const makeBody = bodyFor(route)
      if (route.hasBody && !makeBody) throw new Error(`${route.method} ${route.path} takes a body: add a valid one to \`bodies\``)
      const door = route.path.startsWith('/admin/') ? 'admin' : 'console'
      for (const caller of callers.filter((each) => each.door === door || each.door === 'both')) {
        for (const variant of variants(route)) {
          const path = route.path.includes(':id') ? route.path.replace(':id', encodeURIComponent(await acmeObject(route.path))) : route.path
          const body = makeBody?.()
          const touchesAcme =
            route.path.includes(':id') || variant.acmeInQuery || JSON.stringify(body ?? {}).includes(`"account_id":${acme.id}`)
          const expected = expectedStatus(caller, route, touchesAcme)
          const headers = { 'content-type': 'application/json', ...(await caller.headers()) }
          const before = expected === 'ok' ? '' : await fingerprint(store, taskIds, gateway.gateway.services.tasks.repository)
          const response = await fetch(`${gateway.url}${path}${variant.query ? `?${variant.query}` : ''}`, {
            method: route.method,
            headers,
            body: body === undefined ? undefined : JSON.stringify(body),
          })
          const text = await response.text()
          probes++
          const what = `${caller.label}: ${route.method} ${path}${variant.query ? `?${variant.query}` : ''}`
          const ok = expected === 'ok' ? response.status >= 200 && response.status < 300 : response.status === expected
          if (!ok) failures.push(`${what} answered ${response.status}, expected ${expected}: ${text.slice(0, 200)}`)
          const code = door === 'admin' ? 'read_only_token' : 'not_permitted'
          if (expected === 403 && ok && JSON.parse(text).error.code !== code)
            failures.push(`${what} answered 403 without the code ${code}: ${text}`)
          if (expected !== 'ok' && (await fingerprint(store, taskIds, gateway.gateway.services.tasks.repository)) !== before)
            failures.push(`${what} was refused but changed something`)
          const foreign = caller.accountId === acme.id ? secrets.globex : caller.accountId === globex.id ? secrets.acme : new Set<string>()
          for (const secret of foreign) if (text.includes(secret)) failures.push(`${what} showed "${secret}" of another account`)
        }
      }
    }
    expect(failures).toEqual([])
    expect(probes).toBeGreaterThan(250)
  }, 120_000)

  test('a route that forgets its permission is closed to everyone, a full admin token too', async () => {
    const { services } = gateway.gateway
    const forgotten = new Elysia().use(withAdminToken(services)).get('/admin/api/forgotten', () => ({ open: true }))
    const full = callers.find((caller) => caller.label === 'full token')!
    const response = await forgotten.handle(new Request('http://localhost/admin/api/forgotten', { headers: await full.headers() }))
    expect(response.status).toBe(403)
    expect(await response.text()).not.toContain('open')
  })

  test("another account's object answers exactly like a missing one", async () => {
    const globexViewer = callers.find((caller) => caller.label === 'viewer of globex-matrix')!
    const key = await acmeObject('/keys/')
    const read = async (path: string) => {
      const response = await fetch(`${gateway.url}${path}`, { headers: await globexViewer.headers() })
      return [response.status, await response.text()]
    }
    for (const [foreign, missing] of [
      [`/console/api/keys/${key}`, '/console/api/keys/key_missing00000'],
      [`/console/api/accounts/${acme.id}`, '/console/api/accounts/99999'],
      [`/console/api/tasks/${tasks.acme}`, '/console/api/tasks/msgbatch_missing'],
    ]) {
      expect(await read(foreign!)).toEqual(await read(missing!))
    }
  })
})
