import type { AlertEvent, DeliveryRecord, DeliveryStatus, NewDelivery, WebhookRecord } from '../domain/alerts/records.ts'

/** Webhooks and their deliveries as rows, and the SQL both dialects share (`?` placeholders; PostgreSQL numbers them). */
type Row = Record<string, any>

export const insertWebhookSql = `INSERT INTO webhooks (id, account_id, project_id, url, secret, events, balance_below, expiry_days, budget_percents, created_at, updated_at)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`

export const webhookValues = (webhook: WebhookRecord) => [
  webhook.id,
  webhook.accountId,
  webhook.projectId,
  webhook.url,
  webhook.secret,
  JSON.stringify(webhook.events),
  webhook.balanceBelow,
  webhook.expiryDays,
  JSON.stringify(webhook.budgetPercents),
  webhook.createdAt,
  webhook.updatedAt,
]

export function webhookOf(row: Row): WebhookRecord {
  return {
    id: row.id,
    accountId: Number(row.account_id),
    projectId: row.project_id ?? null,
    url: row.url,
    secret: row.secret,
    events: JSON.parse(row.events) as AlertEvent[],
    balanceBelow: row.balance_below === null ? null : Number(row.balance_below),
    expiryDays: Number(row.expiry_days),
    budgetPercents: JSON.parse(row.budget_percents) as number[],
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  }
}

/** Insert-or-keep: the unique (webhook, dedupe key) index turns a second notice of the same alert into nothing. */
export const enqueueSql = `INSERT INTO webhook_deliveries (id, webhook_id, account_id, event, dedupe_key, payload, status, attempts, next_attempt_at, created_at)
  VALUES (?, ?, ?, ?, ?, ?, 'pending', 0, ?, ?) ON CONFLICT (webhook_id, dedupe_key) DO NOTHING`

export const deliveryValues = (delivery: NewDelivery) => [
  delivery.id,
  delivery.webhookId,
  delivery.accountId,
  delivery.event,
  delivery.dedupeKey,
  delivery.payload,
  delivery.createdAt,
  delivery.createdAt,
]

/** Due, and not claimed by an instance whose claim still runs (a claim that ran out was its crashed owner's). */
export const dueSql = `SELECT id FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at <= ? AND (claimed_until IS NULL OR claimed_until < ?)
  ORDER BY next_attempt_at LIMIT ?`

/** Whether anything is due: every instance asks each `poll_ms`, and nearly always nothing is (no transaction then). */
export const anyDueSql = `SELECT 1 AS due FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at <= ? AND (claimed_until IS NULL OR claimed_until < ?) LIMIT 1`

export const finishSql = `UPDATE webhook_deliveries SET status = ?, attempts = attempts + 1, first_attempt_at = ?, last_attempt_at = ?, next_attempt_at = ?,
  last_status = ?, last_error = ?, delivered_at = ?, claimed_by = NULL, claimed_until = NULL WHERE id = ? AND claimed_by = ?`

export function deliveryOf(row: Row): DeliveryRecord {
  const time = (value: unknown) => (value === null || value === undefined ? null : Number(value))
  return {
    id: row.id,
    webhookId: row.webhook_id,
    accountId: Number(row.account_id),
    event: row.event as AlertEvent,
    dedupeKey: row.dedupe_key,
    payload: row.payload,
    status: row.status as DeliveryStatus,
    attempts: Number(row.attempts),
    nextAttemptAt: Number(row.next_attempt_at),
    firstAttemptAt: time(row.first_attempt_at),
    lastAttemptAt: time(row.last_attempt_at),
    lastStatus: time(row.last_status),
    lastError: row.last_error ?? null,
    createdAt: Number(row.created_at),
    deliveredAt: time(row.delivered_at),
  }
}

/** The WHERE of a deliveries listing and its parameters. */
export function deliveryWhere(filter: { accountId?: number; webhookId?: string; status?: string }): { where: string; params: unknown[] } {
  const clauses: string[] = []
  const params: unknown[] = []
  if (filter.accountId !== undefined) clauses.push('account_id = ?') && params.push(filter.accountId)
  if (filter.webhookId !== undefined) clauses.push('webhook_id = ?') && params.push(filter.webhookId)
  if (filter.status !== undefined) clauses.push('status = ?') && params.push(filter.status)
  return { where: clauses.length ? `WHERE ${clauses.join(' AND ')}` : '', params }
}

export const balanceSql = `SELECT balance, (SELECT coalesce(max(id), 0) FROM ledger_entries WHERE account_id = accounts.id) AS last_credit_id FROM accounts WHERE id = ?`
