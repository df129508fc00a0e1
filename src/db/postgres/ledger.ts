import type { SQL, TransactionSQL } from 'bun'
import { aggregateLedgerWrites, isDuplicateRow, keepInserted, releasedBy, takeFromHold } from '../aggregate-ledger-writes.ts'
import type { PostgresInstance } from './instances.ts'
import type { LedgerWrite } from '../../domain/records.ts'
import type { LedgerRepository, Reservation } from '../../domain/repositories.ts'
import { type BudgetRoom, type BudgetRow, budgetGrant, periodAt, periodChanges, periodOf, summarizeRooms } from '../budget-periods.ts'

/**
 * The ledger's SQL for PostgreSQL, as plain statements on the hot path (see ../sqlite/ledger.ts for why).
 * `instance`: this process, whose id every hold it places carries (instances.ts).
 *
 * Locks are taken in one order everywhere — the instance row, accounts (by id), hold rows (by id), keys (by id),
 * budgets (by id), budget periods (by budget, then start) — so a reservation, a batch and another instance's release
 * of a dead one's holds never deadlock.
 */
export function createPostgresLedger(client: SQL, instance: PostgresInstance): LedgerRepository {
  return {
    term: instance,

    async reserve(request) {
      const { leaseId, accountId, keyId, need, want, at, budgetKeyId } = request
      const owner = instance.id
      const reservation = await client.begin(async (tx): Promise<Reservation> => {
        // Only a live instance may hold money: once another one has declared this one gone (and released its holds),
        // a hold placed under the old id would be released again by the next sweep while its requests run. The
        // KEY SHARE lock keeps the row — and so the hold placed here — from being swept until this commits.
        const [alive] = await tx`SELECT 1 AS alive FROM instances WHERE id = ${owner} FOR KEY SHARE`
        if (!alive) return { granted: 0, short: 'gone' }
        // FOR UPDATE serialises reservations on one account (then on one key: always in that order) across instances.
        const [row]: { available: string }[] =
          await tx`SELECT balance - reserved AS available FROM accounts WHERE id = ${accountId} FOR UPDATE`
        const free = Number(row?.available ?? 0)
        if (free < need) return { granted: 0, short: 'balance' }
        let room: number | null = null
        if (budgetKeyId !== undefined) {
          const [key]: { room: string | null }[] =
            await tx`SELECT budget - spent - reserved AS room FROM api_keys WHERE id = ${budgetKeyId} FOR UPDATE`
          room = key?.room == null ? null : Number(key.room)
          if (room !== null && room < need) return { granted: 0, short: 'budget' }
        }
        let granted = Math.min(want, free, room ?? free)
        const rooms = request.budgetIds ? await budgetRooms(tx, request.budgetIds, at) : undefined
        const summary = rooms && summarizeRooms(rooms)
        if (summary && request.periods !== undefined && summary.periods !== request.periods) return { granted: 0, short: 'period' }
        for (const budget of rooms ?? []) {
          if (budget.room < need) return { granted: 0, short: 'budget', budgetId: budget.budgetId, resetsAt: budget.resetsAt }
          granted = Math.min(granted, budgetGrant(budget.room, need))
        }
        await tx`UPDATE accounts SET reserved = reserved + ${granted} WHERE id = ${accountId}`
        if (budgetKeyId !== undefined) await tx`UPDATE api_keys SET reserved = reserved + ${granted} WHERE id = ${budgetKeyId}`
        for (const budget of rooms ?? []) {
          await tx`INSERT INTO budget_periods (budget_id, period_start, reserved) VALUES (${budget.budgetId}, ${budget.start}, ${granted})
            ON CONFLICT (budget_id, period_start) DO UPDATE SET reserved = budget_periods.reserved + EXCLUDED.reserved`
        }
        await tx`INSERT INTO holds (id, account_id, key_id, amount, created_at, budget_key_id, instance_id, budget_periods)
          VALUES (${leaseId}, ${accountId}, ${keyId}, ${granted}, ${at}, ${budgetKeyId ?? null}, ${owner}, ${summary?.periods ?? null})
          ON CONFLICT (id) DO UPDATE SET amount = holds.amount + EXCLUDED.amount, created_at = EXCLUDED.created_at, instance_id = EXCLUDED.instance_id`
        return { granted, ...summary }
      })
      // Declared gone: register again (which retires this process's leases), and let the ledger start over.
      if (reservation.short === 'gone') await instance.recover()
      return reservation
    },

    async write(batch, { batchId, replay = false } = {}) {
      if (batch.length === 0) return
      try {
        await client.begin((tx) => applyBatch(tx, batch, batchId, replay))
      } catch (error) {
        // A bill committed before that the writer did not know of: the usual batch pays for no RETURNING.
        if (replay || !isDuplicateRow(error)) throw error
        await client.begin((tx) => applyBatch(tx, batch, batchId, true))
      }
    },

    async ping() {
      await client`SELECT 1`
    },

    startServing(unownedBefore) {
      return instance.start(unownedBefore)
    },
  }
}

/**
 * Each scheduled budget's current period at `at` and what is left of it, its row locked (FOR UPDATE, in id order):
 * reservations on one budget are serialised across instances, and a fixed window is opened once.
 */
async function budgetRooms(tx: TransactionSQL, budgetIds: readonly number[], at: number): Promise<BudgetRoom[]> {
  const rooms: BudgetRoom[] = []
  const rows: (BudgetRow & { id: string })[] =
    await tx`SELECT id, amount, period, time_zone FROM budgets WHERE id IN ${tx([...budgetIds])} ORDER BY id FOR UPDATE`
  for (const row of rows) {
    const budgetId = Number(row.id)
    let windowStart: number | undefined
    if (periodOf(row.period).kind === 'window') {
      const [latest]: { start: string | null }[] =
        await tx`SELECT max(period_start) AS start FROM budget_periods WHERE budget_id = ${budgetId}`
      windowStart = latest?.start == null ? undefined : Number(latest.start)
    }
    const period = periodAt({ ...row, amount: Number(row.amount) }, at, windowStart)
    const [used]: { used: string }[] =
      await tx`SELECT spent + reserved AS used FROM budget_periods WHERE budget_id = ${budgetId} AND period_start = ${period.start}`
    rooms.push({ budgetId, start: period.start, resetsAt: period.resetsAt, room: Number(row.amount) - Number(used?.used ?? 0) })
  }
  return rooms
}

/**
 * One batch in one transaction. `batchId` (set when the batch releases lease money, which no usage row marks) is
 * recorded first: a batch whose commit succeeded but whose answer was lost is then recognised when it is written
 * again, and nothing in it is applied twice. With `once`, bills whose usage rows exist already are skipped whole.
 */
async function applyBatch(tx: TransactionSQL, batch: LedgerWrite[], batchId: string | undefined, once: boolean): Promise<void> {
  if (batchId !== undefined) {
    const fresh: unknown[] =
      await tx`INSERT INTO ledger_batches (id, applied_at) VALUES (${batchId}, ${Date.now()}) ON CONFLICT DO NOTHING RETURNING id`
    if (fresh.length === 0) return
  }
  const rows = batch.flatMap((write) =>
    write.kind !== 'release'
      ? [
          {
            request_id: write.usage.requestId,
            account_id: write.usage.accountId,
            key_id: write.usage.keyId,
            model: write.usage.model,
            provider: write.usage.provider,
            upstream_model: write.usage.upstreamModel,
            protocol: write.usage.protocol,
            input_tokens: write.usage.inputTokens,
            cached_input_tokens: write.usage.cachedInputTokens,
            cache_write_tokens: write.usage.cacheWriteTokens,
            output_tokens: write.usage.outputTokens,
            reasoning_tokens: write.usage.reasoningTokens,
            cost: write.usage.cost,
            status: write.usage.status,
            error_type: write.usage.errorType,
            latency_ms: write.usage.latencyMs,
            stream: write.usage.stream,
            estimated: write.usage.estimated,
            created_at: write.usage.createdAt,
            operation: write.usage.operation,
            units: write.usage.units,
          },
        ]
      : [],
  )
  let writes = batch
  if (rows.length && !once) await tx`INSERT INTO usage_records ${tx(rows)}`
  else if (rows.length) {
    const inserted: { request_id: string }[] =
      await tx`INSERT INTO usage_records ${tx(rows)} ON CONFLICT (request_id) DO NOTHING RETURNING request_id`
    writes = keepInserted(
      batch,
      inserted.map((row) => row.request_id),
    )
  }
  const totals = aggregateLedgerWrites(writes)
  const leaseIds = [...totals.leases.keys()].sort()
  const accountIds = [...totals.debits.keys()].sort((a, b) => a - b)
  // Accounts, then hold rows, each in id order (the order every writer takes them in).
  if (accountIds.length) await tx`SELECT id FROM accounts WHERE id IN ${tx(accountIds)} ORDER BY id FOR UPDATE`
  const held: { id: string; amount: string }[] = leaseIds.length
    ? await tx`SELECT id, amount FROM holds WHERE id IN ${tx(leaseIds)} ORDER BY id FOR UPDATE`
    : []
  const holding = new Map(held.map((row) => [row.id, Number(row.amount)]))
  const taken = new Map<string, number>()
  const now = Date.now()
  for (const leaseId of leaseIds) {
    const amount = takeFromHold(holding.get(leaseId), totals.leases.get(leaseId)!.amount)
    taken.set(leaseId, amount)
    // Touching created_at marks a busy lease as alive, so crash recovery elsewhere never mistakes it for stale.
    if (amount > 0) await tx`UPDATE holds SET amount = amount - ${amount}, created_at = ${now} WHERE id = ${leaseId}`
  }
  const released = releasedBy(totals, taken)
  for (const accountId of accountIds) {
    const debit = totals.debits.get(accountId) ?? 0
    const freed = released.accounts.get(accountId) ?? 0
    if (debit || freed) await tx`UPDATE accounts SET balance = balance - ${debit}, reserved = reserved - ${freed} WHERE id = ${accountId}`
  }
  for (const leaseId of totals.releasedLeases) await tx`DELETE FROM holds WHERE id = ${leaseId} AND amount <= 0`
  // One UPDATE per key, in id order, whether it was charged, had budget released, or both.
  for (const keyId of [...new Set([...totals.keys.keys(), ...released.budgetKeys.keys()])].sort()) {
    const key = totals.keys.get(keyId)
    const freed = released.budgetKeys.get(keyId) ?? 0
    if (key) {
      await tx`UPDATE api_keys SET spent = spent + ${key.spent}, reserved = reserved - ${freed},
        last_used_at = GREATEST(COALESCE(last_used_at, 0), ${key.lastUsedAt}) WHERE id = ${keyId}`
    } else await tx`UPDATE api_keys SET reserved = reserved - ${freed} WHERE id = ${keyId}`
  }
  for (const change of periodChanges(totals, released.periods)) {
    await tx`UPDATE budget_periods SET spent = spent + ${change.spent}, reserved = reserved - ${change.freed}
      WHERE budget_id = ${change.budgetId} AND period_start = ${change.start}`
  }
}
