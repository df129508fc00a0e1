import { afterAll, beforeAll, expect, test } from 'bun:test'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import OpenAI from 'openai'
import { createAdminToken } from '../src/domain/admin-tokens.ts'
import { runCli } from './support/cli.ts'
import { addLogin, signIn } from './support/console.ts'
import { startTestGateway, type TestGateway } from './support/gateway.ts'

/** A usage row says which operation it billed, and the console, the admin API, the CSV and the CLI all show it. */
const databasePath = join(mkdtempSync(join(tmpdir(), 'tollgate-operations-')), 'tollgate.db')
let gateway: TestGateway

beforeAll(async () => {
  gateway = await startTestGateway({
    databasePath,
    config: {
      providers: [{ name: 'mock', type: 'mock' }],
      models: [
        { id: 'mock-1', provider: 'mock', price: { input: 1, output: 2 } },
        { id: 'mock-embed', kind: 'embedding', provider: 'mock', price: { input: 1 } },
      ],
    },
  })
  const client = new OpenAI({ baseURL: gateway.baseUrl, apiKey: gateway.key, maxRetries: 0 })
  await client.chat.completions.create({ model: 'mock-1', messages: [{ role: 'user', content: 'hello' }] })
  await client.embeddings.create({ model: 'mock-embed', input: ['one input', 'and another'] })
  await gateway.settled()
})

afterAll(() => gateway?.stop())

test("the console and the admin API: each request's operation and units, and usage by operation", async () => {
  const password = await addLogin(gateway.gateway.services.store, 'ops-admin', 'admin')
  const session = await signIn(gateway.url, 'ops-admin', password)
  const { requests } = (await (await session.get('/console/api/requests')).json()) as { requests: Record<string, unknown>[] }
  expect(requests.map((row) => [row.model, row.operation, row.units])).toEqual([
    ['mock-embed', 'embeddings', 2],
    ['mock-1', 'chat', 0],
  ])
  const usage = (await (await session.get('/console/api/usage')).json()) as { by_operation: { id: string; requests: number }[] }
  expect(usage.by_operation.map((group) => [group.id, group.requests]).sort()).toEqual([
    ['chat', 1],
    ['embeddings', 1],
  ])

  const token = (await createAdminToken(gateway.gateway.services.store.adminTokens, 'ops-reader', 'read')).secret
  const admin = (await (await fetch(`${gateway.url}/admin/api/requests`, { headers: { authorization: `Bearer ${token}` } })).json()) as {
    requests: Record<string, unknown>[]
  }
  expect(admin.requests.map((row) => row.operation)).toEqual(['embeddings', 'chat'])
})

test('the CSV has operation and units columns', async () => {
  const password = await addLogin(gateway.gateway.services.store, 'csv-admin', 'admin')
  const session = await signIn(gateway.url, 'csv-admin', password)
  const [header, ...rows] = (await (await session.get('/console/api/requests/csv')).text()).trim().split('\r\n')
  const columns = header!.split(',')
  const cell = (row: string, name: string) => row.split(',')[columns.indexOf(name)]
  expect(rows.map((row) => [cell(row, 'model'), cell(row, 'operation'), cell(row, 'units')])).toEqual([
    ['mock-embed', 'embeddings', '2'],
    ['mock-1', 'chat', '0'],
  ])
})

test('tollgate usage splits by operation, in its text and its JSON', () => {
  const env = { TOLLGATE_DATABASE: `sqlite:${databasePath}` }
  const json = runCli(['bun', 'src/main.ts'], ['usage', '--json'], env).json()
  expect(json.by_operation.map((group: { operation: string; requests: number }) => [group.operation, group.requests]).sort()).toEqual([
    ['chat', 1],
    ['embeddings', 1],
  ])
  const text = runCli(['bun', 'src/main.ts'], ['usage'], env).stdout
  expect(text).toMatch(/ {2}embeddings: +1 requests, \$0\.\d+/)
  expect(text).toMatch(/ {2}chat: +1 requests, \$0\.\d+/)
})
