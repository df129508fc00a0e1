import { afterAll, beforeAll, expect, test } from 'bun:test'
import { mockConfig, startTestGateway, type TestGateway } from './support/gateway.ts'
import { createTestDatabase } from './support/postgres.ts'

/**
 * One address may have only `limits.unauthenticated_per_address` unknown-key lookups in progress: a flood of made-up
 * keys cannot queue store lookups for everyone. PostgreSQL, because there a lookup takes real time (SQLite answers
 * before the next request is even read).
 */
let database: Awaited<ReturnType<typeof createTestDatabase>>
let gateway: TestGateway

beforeAll(async () => {
  database = await createTestDatabase()
  gateway = await startTestGateway({ database: database.url, config: { ...mockConfig, limits: { unauthenticated_per_address: 4 } } })
})
afterAll(async () => {
  await gateway.stop()
  await database.drop()
})

test('made-up keys beyond unauthenticated_per_address in progress get a 429 in the protocol shape, the connection closed', async () => {
  const responses = await Promise.all(
    Array.from({ length: 64 }, (_, index) =>
      fetch(`${gateway.baseUrl}/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer sk-made-up-${index}`, 'content-type': 'application/json' },
        body: '{}',
      }),
    ),
  )
  const refused = responses.filter((response) => response.status === 429)
  console.log(`64 made-up keys at once: ${refused.length} × 429, ${responses.filter((response) => response.status === 401).length} × 401`)
  expect(responses.every((response) => response.status === 401 || response.status === 429)).toBe(true)
  expect(refused.length).toBeGreaterThan(0)
  expect(refused[0]!.headers.get('connection')).toBe('close')
  expect(await refused[0]!.json()).toMatchObject({ error: { code: 'too_many_unauthenticated', type: expect.any(String) } })
  // A real key is not held back by the flood.
  const own = await fetch(`${gateway.baseUrl}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${gateway.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'mock-1', messages: [{ role: 'user', content: 'hi' }] }),
  })
  expect(own.status).toBe(200)
})

test('an upload with made-up keys meets the same limit: a 429 with the connection closed, counted as refused', async () => {
  const upload = (index: number) => {
    const form = new FormData()
    form.set('purpose', 'batch')
    form.set('file', new Blob(['{}\n']), 'items.jsonl')
    return fetch(`${gateway.baseUrl}/files`, {
      method: 'POST',
      headers: { authorization: `Bearer sk-made-up-upload-${index}` },
      body: form,
    })
  }
  const refusedSoFar = async () => {
    const metrics = await (await fetch(`${gateway.baseUrl.replace(/\/v1$/, '')}/metrics`)).text()
    return [...metrics.matchAll(/^tollgate_refused_requests_total\{[^}]*\} (\d+)$/gm)].reduce((sum, match) => sum + Number(match[1]), 0)
  }
  const before = await refusedSoFar()
  const responses = await Promise.all(Array.from({ length: 64 }, (_, index) => upload(index)))
  const refused = responses.filter((response) => response.status === 429)
  expect(responses.every((response) => response.status === 401 || response.status === 429)).toBe(true)
  expect(refused.length).toBeGreaterThan(0)
  expect(refused[0]!.headers.get('connection')).toBe('close')
  expect(await refused[0]!.json()).toMatchObject({ error: { code: 'too_many_unauthenticated' } })
  // Each refusal is counted (and logged) as every other endpoint's is.
  expect((await refusedSoFar()) - before).toBe(64)
})
