import { formatUsd } from '../../core/money.ts'
import type { DeliveryRecord, WebhookRecord } from './records.ts'

const isoTime = (time: number | null) => (time === null ? null : new Date(time).toISOString())

/** A webhook as the console, the admin API and the CLI show it: never its secret (shown once, when made). */
export function webhookJson(webhook: WebhookRecord) {
  return {
    id: webhook.id,
    account_id: webhook.accountId,
    project_id: webhook.projectId,
    url: webhook.url,
    events: webhook.events,
    balance_below_usd: webhook.balanceBelow === null ? null : formatUsd(webhook.balanceBelow),
    expiry_days: webhook.expiryDays,
    budget_percents: webhook.budgetPercents,
    created_at: new Date(webhook.createdAt).toISOString(),
  }
}

/** One delivery: what was sent, how often it was tried, and how its last attempt ended. */
export function deliveryJson(delivery: DeliveryRecord) {
  return {
    id: delivery.id,
    webhook_id: delivery.webhookId,
    event: delivery.event,
    status: delivery.status,
    attempts: delivery.attempts,
    created_at: new Date(delivery.createdAt).toISOString(),
    last_attempt_at: isoTime(delivery.lastAttemptAt),
    next_attempt_at: delivery.status === 'pending' ? isoTime(delivery.nextAttemptAt) : null,
    delivered_at: isoTime(delivery.deliveredAt),
    last_status: delivery.lastStatus,
    last_error: delivery.lastError,
    payload: JSON.parse(delivery.payload) as Record<string, unknown>,
  }
}
