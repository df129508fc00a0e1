import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openSqliteStore } from '../db/sqlite/store.ts'
import type { Logger } from '../core/logger.ts'
import { cliActor } from './actor.ts'
import { DomainError } from './errors.ts'
import { KeyInputError } from './key-rules.ts'
import { type KeyChange, KeyService } from './key-service.ts'
import type { Store } from './repositories.ts'

const actor = cliActor('ops')
const now = Date.parse('2030-01-01T00:00:00Z')

let store: Store
let accountId: number
let heard: KeyChange[]
let models: string[]
let service: KeyService

beforeEach(async () => {
  store = openSqliteStore(join(mkdtempSync(join(tmpdir(), 'key-service-')), 'keys.db'))
  await store.migrate()
  accountId = (await store.accounts.create('acme', now)).id
  heard = []
  models = ['mock-1', 'mock-fast']
  service = new KeyService({
    repository: store.keys,
    configuredModels: () => models,
    listeners: [(change) => void heard.push(change)],
    clock: () => now,
  })
})

afterEach(() => store.close())

/** The thrown value of a promise that must fail. */
const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('expected a refusal')
    },
    (error: unknown) => error,
  )

describe('KeyService', () => {
  test('each change is stored, then told to the listeners with its actor, time, and the key before and after', async () => {
    const { record, secret } = await service.create({ accountId, name: '  laptop ', models: ['mock-1', 'mock-1'], rpm: 5 }, actor)
    expect(record).toMatchObject({ name: 'laptop', models: ['mock-1'], rpm: 5, createdAt: now })
    expect(await store.keys.findById(record.id)).toEqual(record)
    const edited = await service.edit(record.id, { rpm: null, budget: 2_000_000_000 }, actor)
    expect(edited).toMatchObject({ rpm: null, budget: 2_000_000_000, name: 'laptop' })
    const rotated = await service.rotate(record.id, actor)
    expect(rotated.secret).not.toBe(secret)
    const revoked = await service.revoke(record.id, actor)
    expect(revoked).toMatchObject({ changed: true, key: { revokedAt: now } })
    expect(heard.map((change) => [change.action, change.actor, change.at, change.before?.rpm, change.after.rpm])).toEqual([
      ['create', actor, now, undefined, 5],
      ['edit', actor, now, 5, null],
      ['rotate', actor, now, null, null],
      ['revoke', actor, now, null, null],
    ])
    expect(heard[0]!.before).toBeNull()
    expect(heard[2]!.before!.hash).not.toBe(heard[2]!.after.hash)
    expect(heard[3]!.after).toEqual(revoked.key)
  })

  test('a refused change names its field, stores nothing and tells nobody', async () => {
    const { record } = await service.create({ accountId }, actor)
    heard = []
    const cases: [Record<string, unknown>, string | undefined][] = [
      [{ name: 'x'.repeat(101) }, 'name'],
      [{ models: [] }, 'models'],
      [{ models: ['gpt-9'] }, 'models'],
      [{ rpm: 0 }, 'rpm'],
      [{ tpm: 1.5 }, 'tpm'],
      [{ concurrency: 1_000_000_001 }, 'concurrency'],
      [{ budget: 0 }, 'budget'],
      [{ budget: -1 }, 'budget'],
      [{ expiresAt: now }, 'expiresAt'],
      [{ allowedIps: [] }, 'allowedIps'],
      [{ allowedIps: ['10.0.0.0/33'] }, 'allowedIps'],
      [{}, undefined],
    ]
    for (const [changes, field] of cases) {
      const error = await refusal(service.edit(record.id, changes, actor))
      expect({ changes, error }).toEqual({ changes, error: expect.any(KeyInputError) })
      expect((error as KeyInputError).field).toBe(field as never)
      if (Object.keys(changes).length === 0) continue
      expect(((await refusal(service.create({ accountId, ...changes }, actor))) as KeyInputError).field).toBe(field as never)
    }
    expect(heard).toEqual([])
    expect(await store.keys.list(accountId)).toEqual([record])
  })

  test("a refused address list says which entry is wrong and why, in words that follow the field's name", async () => {
    const rule = async (allowedIps: unknown[]) =>
      ((await refusal(service.create({ accountId, allowedIps: allowedIps as string[] }, actor))) as KeyInputError).rule
    expect(await rule(['10.0.0.1', '10.0.0.300'])).toBe(
      'has a bad entry 2: "10.0.0.300" is not an IP address or CIDR block such as 10.0.0.0/8, 192.168.1.7 or 2001:db8::/32',
    )
    expect(await rule([42])).toBe('has a bad entry 1: it must be a string such as "10.0.0.0/8"')
    expect(await rule([])).toBe('is empty: list at least one address or block, or leave it out to allow every address')
    const { record } = await service.create({ accountId, allowedIps: [' 10.0.0.0/8 ', '10.0.0.0/8', '::1'] }, actor)
    expect(record.allowedIps).toEqual(['10.0.0.0/8', '::1'])
  })

  test('the configured models are read at each change, so a reload counts at once', async () => {
    expect(await refusal(service.create({ accountId, models: ['new-model'] }, actor))).toBeInstanceOf(KeyInputError)
    models = [...models, 'new-model']
    expect((await service.create({ accountId, models: ['new-model'] }, actor)).record.models).toEqual(['new-model'])
  })

  test('a revoked key cannot change (a conflict); revoking it again changes nothing and tells nobody', async () => {
    const { record } = await service.create({ accountId }, actor)
    await service.revoke(record.id, actor)
    heard = []
    for (const change of [service.edit(record.id, { rpm: 1 }, actor), service.rotate(record.id, actor)]) {
      expect(await refusal(change)).toMatchObject({ kind: 'conflict' })
    }
    expect(await service.revoke(record.id, actor)).toMatchObject({ changed: false, key: { id: record.id, revokedAt: now } })
    expect(heard).toEqual([])
    const missing = 'key_missing'
    for (const change of [service.edit(missing, { rpm: 1 }, actor), service.rotate(missing, actor), service.revoke(missing, actor)]) {
      const error = await refusal(change)
      expect(error).toBeInstanceOf(DomainError)
      expect(error).toMatchObject({ kind: 'not_found' })
    }
  })

  test('a listener that fails is logged with its stack; the change stands and the next listener still hears it', async () => {
    const logged: Record<string, unknown>[] = []
    const logger: Logger = { info() {}, warn() {}, error: (fields) => void logged.push(fields as Record<string, unknown>) }
    const later: string[] = []
    const failing = new KeyService({
      repository: store.keys,
      configuredModels: () => models,
      logger,
      clock: () => now,
      listeners: [
        () => {
          throw new TypeError('cache is broken')
        },
        (change) => void later.push(change.after.id),
      ],
    })
    const { record } = await failing.create({ accountId }, actor)
    expect(await store.keys.findById(record.id)).toEqual(record)
    expect(later).toEqual([record.id])
    expect(logged).toHaveLength(1)
    expect(String(logged[0]!.stack)).toContain('cache is broken')
  })
})
