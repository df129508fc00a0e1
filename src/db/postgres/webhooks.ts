import type { SQL } from 'bun'
import type { WebhookRepository } from '../../domain/alerts/records.ts'
import * as webhookRows from '../webhook-rows.ts'
import { writeAuditRaw } from './audit.ts'
import { rawSql, type Runner } from './raw-sql.ts'

/**
 * Webhooks and deliveries on PostgreSQL, shared by several instances: a due delivery is claimed with
 * `FOR UPDATE SKIP LOCKED`, so two instances never send the same attempt, and a claim that runs out (its instance
 * died mid-attempt) lets another instance take it.
 */
export function createPostgresWebhooks(client: SQL): WebhookRepository {
  const { all, first, run } = rawSql(client)
  const findById = async (id: string, on: Runner = client) => {
    const row = await first('SELECT * FROM webhooks WHERE id = ?', [id], on)
    return row ? webhookRows.webhookOf(row) : undefined
  }
  return {
    insert: (webhook, audit) =>
      client.begin(async (tx) => {
        await run(webhookRows.insertWebhookSql, webhookRows.webhookValues(webhook), tx)
        await writeAuditRaw(tx, audit?.(undefined, webhook))
      }),
    delete: (id, audit) =>
      client.begin(async (tx) => {
        const row = await first('SELECT * FROM webhooks WHERE id = ? FOR UPDATE', [id], tx)
        if (!row) return false
        await run('DELETE FROM webhook_deliveries WHERE webhook_id = ?', [id], tx)
        await run('DELETE FROM webhooks WHERE id = ?', [id], tx)
        await writeAuditRaw(tx, audit?.(webhookRows.webhookOf(row), undefined))
        return true
      }),
    findById: (id) => findById(id),
    async list(accountId) {
      const rows =
        accountId === undefined
          ? await all('SELECT * FROM webhooks ORDER BY created_at, id')
          : await all('SELECT * FROM webhooks WHERE account_id = ? ORDER BY created_at, id', [accountId])
      return rows.map(webhookRows.webhookOf)
    },
    async enqueue(deliveries) {
      if (deliveries.length === 0) return 0
      return client.begin(async (tx) => {
        let added = 0
        for (const delivery of deliveries) added += await run(webhookRows.enqueueSql, webhookRows.deliveryValues(delivery), tx)
        return added
      })
    },
    claimDue: async (owner, now, claimedUntil, max) =>
      !(await first(webhookRows.anyDueSql, [now, now]))
        ? []
        : client.begin(async (tx) => {
            // SKIP LOCKED: a delivery another instance is claiming right now is passed over, never waited for or taken twice.
            const ids = (await all(`${webhookRows.dueSql} FOR UPDATE SKIP LOCKED`, [now, now, max], tx)).map((row) => row.id as string)
            if (ids.length === 0) return []
            const rows = await all(
              `UPDATE webhook_deliveries SET claimed_by = ?, claimed_until = ? WHERE id = ANY(?::text[]) RETURNING *`,
              [owner, claimedUntil, ids],
              tx,
            )
            return rows.map(webhookRows.deliveryOf).sort((left, right) => left.nextAttemptAt - right.nextAttemptAt)
          }),
    async finishAttempt(id, owner, outcome) {
      const delivered = outcome.status === 'delivered' ? outcome.at : null
      return (
        (await run(webhookRows.finishSql, [
          outcome.status,
          outcome.firstAttemptAt,
          outcome.at,
          outcome.nextAttemptAt,
          outcome.lastStatus,
          outcome.lastError,
          delivered,
          id,
          owner,
        ])) > 0
      )
    },
    async listDeliveries(filter, limit) {
      const { where, params } = webhookRows.deliveryWhere(filter)
      return (await all(`SELECT * FROM webhook_deliveries ${where} ORDER BY created_at DESC, id DESC LIMIT ?`, [...params, limit])).map(
        webhookRows.deliveryOf,
      )
    },
    async balanceOf(accountId) {
      const row = await first(webhookRows.balanceSql, [accountId])
      return row ? { balance: Number(row.balance), lastCreditId: Number(row.last_credit_id) } : undefined
    },
  }
}
