import type { SQL } from 'bun'
import { aggregateLedgerWrites } from '../aggregate-ledger-writes.ts'
import type { PostgresInstance } from './instances.ts'
import type { LedgerRepository, Reservation } from '../../domain/repositories.ts'

/** The ledger's SQL for PostgreSQL, as plain statements on the hot path (see ../sqlite/ledger.ts for why). */
/** `instance`: this process, whose id every hold it places carries (instances.ts). */
export function createPostgresLedger(client: SQL, instance: PostgresInstance): LedgerRepository {
  return {
    async reserve({ leaseId, accountId, keyId, need, want, at, budgetKeyId }) {
      return client.begin(async (tx): Promise<Reservation> => {
        // FOR UPDATE serialises reservations on one account (then on one key: always in that order) across instances.
        const [row]: { available: string }[] = await tx`SELECT balance - reserved AS available FROM accounts WHERE id = ${accountId} FOR UPDATE`
        const free = Number(row?.available ?? 0)
        if (free < need) return { granted: 0, short: 'balance' }
        let room: number | null = null
        if (budgetKeyId !== undefined) {
          const [key]: { room: string | null }[] = await tx`SELECT budget - spent - reserved AS room FROM api_keys WHERE id = ${budgetKeyId} FOR UPDATE`
          room = key?.room == null ? null : Number(key.room)
          if (room !== null && room < need) return { granted: 0, short: 'budget' }
        }
        const granted = Math.min(want, free, room ?? free)
        await tx`UPDATE accounts SET reserved = reserved + ${granted} WHERE id = ${accountId}`
        if (budgetKeyId !== undefined) await tx`UPDATE api_keys SET reserved = reserved + ${granted} WHERE id = ${budgetKeyId}`
        await tx`INSERT INTO holds (id, account_id, key_id, amount, created_at, budget_key_id, instance_id)
          VALUES (${leaseId}, ${accountId}, ${keyId}, ${granted}, ${at}, ${budgetKeyId ?? null}, ${instance.id})
          ON CONFLICT (id) DO UPDATE SET amount = holds.amount + EXCLUDED.amount, created_at = EXCLUDED.created_at`
        return { granted }
      })
    },

    async write(batch) {
      if (batch.length === 0) return
      const rows = batch.flatMap((write) => write.kind !== 'release' ? [{
        request_id: write.usage.requestId, account_id: write.usage.accountId, key_id: write.usage.keyId, model: write.usage.model,
        provider: write.usage.provider, upstream_model: write.usage.upstreamModel, protocol: write.usage.protocol,
        input_tokens: write.usage.inputTokens, cached_input_tokens: write.usage.cachedInputTokens, cache_write_tokens: write.usage.cacheWriteTokens,
        output_tokens: write.usage.outputTokens, reasoning_tokens: write.usage.reasoningTokens, cost: write.usage.cost,
        status: write.usage.status, error_type: write.usage.errorType, latency_ms: write.usage.latencyMs,
        stream: write.usage.stream, estimated: write.usage.estimated, created_at: write.usage.createdAt,
        operation: write.usage.operation, units: write.usage.units,
      }] : [])
      const totals = aggregateLedgerWrites(batch)
      await client.begin(async (tx) => {
        if (rows.length) await tx`INSERT INTO usage_records ${tx(rows)}`
        // Sorted ids: two instances updating the same rows lock them in the same order, so they cannot deadlock.
        for (const [accountId, account] of [...totals.accounts].sort(([a], [b]) => a - b)) {
          await tx`UPDATE accounts SET balance = balance - ${account.debit}, reserved = reserved - ${account.debit + account.released} WHERE id = ${accountId}`
        }
        for (const [leaseId, amount] of [...totals.leases].sort(([a], [b]) => a.localeCompare(b))) {
          // Touching created_at marks a busy lease as alive, so crash recovery elsewhere never mistakes it for stale.
          await tx`UPDATE holds SET amount = amount - ${amount}, created_at = ${Date.now()} WHERE id = ${leaseId}`
        }
        for (const leaseId of totals.releasedLeases) await tx`DELETE FROM holds WHERE id = ${leaseId} AND amount <= 0`
        // One UPDATE per key, in id order, whether it was charged, had budget released, or both.
        for (const keyId of [...new Set([...totals.keys.keys(), ...totals.budgetReleases.keys()])].sort()) {
          const key = totals.keys.get(keyId)
          const released = totals.budgetReleases.get(keyId) ?? 0
          if (key) {
            await tx`UPDATE api_keys SET spent = spent + ${key.spent}, reserved = reserved - ${released},
              last_used_at = GREATEST(COALESCE(last_used_at, 0), ${key.lastUsedAt}) WHERE id = ${keyId}`
          } else await tx`UPDATE api_keys SET reserved = reserved - ${released} WHERE id = ${keyId}`
        }
      })
    },

    startServing(unownedBefore) {
      return instance.start(unownedBefore)
    },
  }
}
