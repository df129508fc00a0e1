import type { Database } from 'bun:sqlite'
import type { WebhookRepository } from '../../domain/alerts/records.ts'
import * as webhookRows from '../webhook-rows.ts'
import { writeAuditRaw } from './audit.ts'

type Row = Record<string, any>

/** Webhooks and deliveries on SQLite: each change is one synchronous transaction (one server per file claims). */
export function createSqliteWebhooks(client: Database): WebhookRepository {
  const all = (sql: string, ...params: any[]) => client.query(sql).all(...params) as Row[]
  const get = (sql: string, ...params: any[]) => client.query(sql).get(...params) as Row | null
  const findById = (id: string) => {
    const row = get('SELECT * FROM webhooks WHERE id = ?', id)
    return row ? webhookRows.webhookOf(row) : undefined
  }
  const insert = client.transaction(
    (webhook: Parameters<WebhookRepository['insert']>[0], audit: Parameters<WebhookRepository['insert']>[1]) => {
      client.query(webhookRows.insertWebhookSql).run(...(webhookRows.webhookValues(webhook) as any[]))
      writeAuditRaw(client, audit?.(undefined, webhook))
    },
  )
  const remove = client.transaction((id: string, audit: Parameters<WebhookRepository['delete']>[1]) => {
    const before = findById(id)
    if (!before) return false
    client.query('DELETE FROM webhook_deliveries WHERE webhook_id = ?').run(id)
    client.query('DELETE FROM webhooks WHERE id = ?').run(id)
    writeAuditRaw(client, audit?.(before, undefined))
    return true
  })
  const enqueue = client.transaction((deliveries: Parameters<WebhookRepository['enqueue']>[0]) => {
    let added = 0
    for (const delivery of deliveries)
      added += client.query(webhookRows.enqueueSql).run(...(webhookRows.deliveryValues(delivery) as any[])).changes
    return added
  })
  const claim = client.transaction((owner: string, now: number, claimedUntil: number, max: number) => {
    const ids = all(webhookRows.dueSql, now, now, max).map((row) => row.id as string)
    return ids.map((id) =>
      webhookRows.deliveryOf(
        get('UPDATE webhook_deliveries SET claimed_by = ?, claimed_until = ? WHERE id = ? RETURNING *', owner, claimedUntil, id)!,
      ),
    )
  })
  return {
    async insert(webhook, audit) {
      insert.immediate(webhook, audit)
    },
    async delete(id, audit) {
      return remove.immediate(id, audit)
    },
    async findById(id) {
      return findById(id)
    },
    async list(accountId) {
      const rows =
        accountId === undefined
          ? all('SELECT * FROM webhooks ORDER BY created_at, id')
          : all('SELECT * FROM webhooks WHERE account_id = ? ORDER BY created_at, id', accountId)
      return rows.map(webhookRows.webhookOf)
    },
    async enqueue(deliveries) {
      return deliveries.length ? enqueue.immediate(deliveries) : 0
    },
    async claimDue(owner, now, claimedUntil, max) {
      return get(webhookRows.anyDueSql, now, now) ? claim.immediate(owner, now, claimedUntil, max) : []
    },
    async finishAttempt(id, owner, outcome) {
      const delivered = outcome.status === 'delivered' ? outcome.at : null
      return (
        client
          .query(webhookRows.finishSql)
          .run(
            outcome.status,
            outcome.firstAttemptAt,
            outcome.at,
            outcome.nextAttemptAt,
            outcome.lastStatus,
            outcome.lastError,
            delivered,
            id,
            owner,
          ).changes > 0
      )
    },
    async listDeliveries(filter, limit) {
      const { where, params } = webhookRows.deliveryWhere(filter)
      return all(`SELECT * FROM webhook_deliveries ${where} ORDER BY created_at DESC, id DESC LIMIT ?`, ...(params as any[]), limit).map(
        webhookRows.deliveryOf,
      )
    },
    async balanceOf(accountId) {
      const row = get(webhookRows.balanceSql, accountId)
      return row ? { balance: Number(row.balance), lastCreditId: Number(row.last_credit_id) } : undefined
    },
  }
}
