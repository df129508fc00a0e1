import { describe, expect, test } from 'bun:test'
import { costOf } from '../core/pricing.ts'
import type { Target } from '../core/provider.ts'
import { KeyLimiter } from '../domain/limits.ts'
import type { Ledger } from '../domain/ledger.ts'
import type { Hold, KeyRecord, UsageRecord } from '../domain/records.ts'
import { AbortScope } from './abort-scope.ts'
import { Metrics } from './metrics.ts'
import { Settlement } from './settlement.ts'
import type { RelayCall } from './types.ts'

const key = { id: 'key_1', accountId: 1, rpm: null, tpm: null, concurrency: 1 } as KeyRecord
const hold: Hold = { id: 'lease_1', accountId: 1, keyId: key.id, amount: 5000, createdAt: Date.now() }
const usage = { inputTokens: 10, cachedInputTokens: 0, cacheWriteTokens: 0, outputTokens: 5, reasoningTokens: 0 }

function harness(
  ledger: Pick<Ledger, 'settle'>,
  price: Target['model']['price'] = { input: 1000, output: 2000, cachedInput: 0, cacheWrite: 0 },
) {
  const limiter = new KeyLimiter()
  const errors: Record<string, any>[] = []
  let finished = 0
  const logger = { info() {}, warn() {}, error: (fields: Record<string, any>) => errors.push(fields) }
  const operation = { name: 'chat', costOf }
  const call = {
    key,
    protocol: 'openai-chat',
    operation,
    requestId: 'req_1',
    request: { model: 'm', stream: false },
    scope: new AbortScope(),
  } as unknown as RelayCall
  const target = { model: { id: 'm', price }, provider: { name: 'p' }, upstreamModel: 'u' } as unknown as Target
  const deps = { ledger: ledger as Ledger, logger, metrics: new Metrics(), finished: () => finished++ }
  const settlement = new Settlement(deps, call, hold, limiter.admit(key, 0), performance.now())
  return { limiter, errors, settlement, target, finished: () => finished }
}

describe('Settlement releases the permit and the drain count on every path', () => {
  test("the ledger throwing: logged with its stack, the key's one concurrent slot is free again", () => {
    const { limiter, errors, settlement, target, finished } = harness({
      settle() {
        throw new Error('ledger exploded')
      },
    })
    expect(() => settlement.settle(target, { status: 200, usage }, 1)).not.toThrow()
    expect(finished()).toBe(1)
    expect(() => limiter.admit(key, 0)).not.toThrow()
    expect(errors[0]!.message).toBe('ledger exploded')
    expect(errors[0]!.stack).toContain('settlement.test.ts')
  })

  test('pricing throwing: the request is billed its hold, flagged estimated, and the slot is free again', () => {
    const settled: UsageRecord[] = []
    const price = {
      get input(): number {
        throw new Error('no price')
      },
      output: 1,
      cachedInput: 0,
      cacheWrite: 0,
    }
    const { limiter, errors, settlement, target, finished } = harness(
      { settle: (_, record) => (settled.push(record), Promise.resolve()) },
      price,
    )
    expect(() => settlement.settle(target, { status: 200, usage }, 1)).not.toThrow()
    expect(finished()).toBe(1)
    expect(() => limiter.admit(key, 0)).not.toThrow()
    expect(settled[0]).toMatchObject({ cost: hold.amount, estimated: true })
    expect(errors[0]!.message).toBe('no price')
  })
})
