import type { SQL } from 'bun'
import { aggregateLedgerWrites } from '../aggregate-ledger-writes.ts'
import type { LedgerRepository } from '../repositories.ts'

/** The ledger's SQL for PostgreSQL, as plain statements on the hot path (see ../sqlite/ledger.ts for why). */
export function createPostgresLedger(client: SQL): LedgerRepository {
  return {
    async reserve({ leaseId, accountId, keyId, need, want, at }) {
      return client.begin(async (tx) => {
        // FOR UPDATE serialises reservations on one account across every instance.
        const [row]: { available: string }[] = await tx`SELECT balance - reserved AS available FROM accounts WHERE id = ${accountId} FOR UPDATE`
        const free = Number(row?.available ?? 0)
        if (free < need) return 0
        const granted = Math.min(want, free)
        await tx`UPDATE accounts SET reserved = reserved + ${granted} WHERE id = ${accountId}`
        await tx`INSERT INTO holds (id, account_id, key_id, amount, created_at) VALUES (${leaseId}, ${accountId}, ${keyId}, ${granted}, ${at})
          ON CONFLICT (id) DO UPDATE SET amount = holds.amount + EXCLUDED.amount, created_at = EXCLUDED.created_at`
        return granted
      })
    },

    async write(batch) {
      if (batch.length === 0) return
      const rows = batch.flatMap((write) => write.kind === 'settle' ? [{
        request_id: write.usage.requestId, account_id: write.usage.accountId, key_id: write.usage.keyId, model: write.usage.model,
        provider: write.usage.provider, upstream_model: write.usage.upstreamModel, protocol: write.usage.protocol,
        input_tokens: write.usage.inputTokens, cached_input_tokens: write.usage.cachedInputTokens, cache_write_tokens: write.usage.cacheWriteTokens,
        output_tokens: write.usage.outputTokens, reasoning_tokens: write.usage.reasoningTokens, cost: write.usage.cost,
        status: write.usage.status, error_type: write.usage.errorType, latency_ms: write.usage.latencyMs,
        stream: write.usage.stream, estimated: write.usage.estimated, created_at: write.usage.createdAt,
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
        for (const [keyId, key] of [...totals.keys].sort(([a], [b]) => a.localeCompare(b))) {
          await tx`UPDATE api_keys SET spent = spent + ${key.spent}, last_used_at = GREATEST(COALESCE(last_used_at, 0), ${key.lastUsedAt}) WHERE id = ${keyId}`
        }
      })
    },

    async releaseStaleHolds(before) {
      return client.begin(async (tx) => {
        const stale: { account_id: string; amount: string }[] = await tx`DELETE FROM holds WHERE created_at < ${before} RETURNING account_id, amount`
        for (const hold of stale) await tx`UPDATE accounts SET reserved = reserved - ${Number(hold.amount)} WHERE id = ${Number(hold.account_id)}`
        return stale.length
      })
    },
  }
}
