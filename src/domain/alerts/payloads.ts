import { formatUsd } from '../../core/money.ts'
import { randomBase62 } from '../../core/ids.ts'
import type { AlertEvent, NewDelivery, WebhookRecord } from './records.ts'

/**
 * The body of each alert. One envelope for every event — `id` (the same on every attempt, so a receiver can drop a
 * repeat), `type`, `created_at`, `account_id`, and the event's own `data` — with money as exact decimal strings and
 * times as ISO-8601, as everywhere the gateway answers.
 */
export function deliveryOf(
  webhook: WebhookRecord,
  event: AlertEvent,
  dedupeKey: string,
  data: Record<string, unknown>,
  at: number,
): NewDelivery {
  const id = `whd_${randomBase62(16)}`
  const payload = JSON.stringify({ id, type: event, created_at: new Date(at).toISOString(), account_id: webhook.accountId, data })
  return { id, webhookId: webhook.id, accountId: webhook.accountId, event, dedupeKey, payload, createdAt: at }
}

/**
 * What makes each alert once-only, per webhook (the store's unique key, and this instance's memory of what it stored):
 * a balance's threshold between two credits, a budget's threshold in one period, a key's expiry.
 */
export const onceKeys = {
  balanceBelow: (threshold: number, lastCreditId: number): string => `balance.below:${threshold}:${lastCreditId}`,
  budgetThreshold: (observation: Pick<SpendObservation, 'budgetId' | 'periodStart'>, percent: number): string =>
    `budget.threshold:${observation.budgetId}:${observation.periodStart}:${percent}`,
  keyExpiring: (keyId: string, expiresAt: number): string => `key.expiring:${keyId}:${expiresAt}`,
}

/** `balance.below`: once per threshold between two credits (a credit is a new occasion: the balance was topped up). */
export function balanceBelow(webhook: WebhookRecord, balance: number, lastCreditId: number, at: number): NewDelivery {
  return deliveryOf(
    webhook,
    'balance.below',
    onceKeys.balanceBelow(webhook.balanceBelow!, lastCreditId),
    {
      threshold_usd: formatUsd(webhook.balanceBelow!),
      balance_usd: formatUsd(balance),
    },
    at,
  )
}

/** What a budget's owner (the budgets feature) reports after settling: how much of which budget's period is spent. */
export interface SpendObservation {
  /** Whose budget: the account's, one of its projects', or one of its keys'. */
  scope: { kind: 'account' | 'project' | 'key'; accountId: number; projectId?: string | null; keyId?: string | null }
  /** The budget's id (numbers are fine: it is only written into the alert and its once-only key). */
  budgetId: string | number
  /** The start of the budget's current period (epoch ms): a threshold is told once per period. */
  periodStart: number
  /** Integer nano-dollars, as the ledger keeps them. */
  spent: number
  limit: number
}

export function budgetThreshold(webhook: WebhookRecord, observation: SpendObservation, percent: number, at: number): NewDelivery {
  const { scope } = observation
  return deliveryOf(
    webhook,
    'budget.threshold',
    onceKeys.budgetThreshold(observation, percent),
    {
      scope: scope.kind,
      project_id: scope.projectId ?? null,
      key_id: scope.keyId ?? null,
      budget_id: String(observation.budgetId),
      period_start: new Date(observation.periodStart).toISOString(),
      percent,
      spent_usd: formatUsd(observation.spent),
      limit_usd: formatUsd(observation.limit),
    },
    at,
  )
}

/** The percentages a spend has reached, lowest first: 80 % of $10 is reached at exactly $8 (integers, no rounding). */
export function reachedPercents(percents: readonly number[], spent: number, limit: number): number[] {
  if (limit <= 0) return []
  return percents.filter((percent) => spent * 100 >= limit * percent)
}

/** `key.expiring`: once per key and expiry time (a key given a new expiry is a new occasion). */
export function keyExpiring(webhook: WebhookRecord, key: { id: string; name: string | null; expiresAt: number }, at: number): NewDelivery {
  return deliveryOf(
    webhook,
    'key.expiring',
    onceKeys.keyExpiring(key.id, key.expiresAt),
    {
      key_id: key.id,
      key_name: key.name,
      expires_at: new Date(key.expiresAt).toISOString(),
      days_left: Math.max(0, Math.floor((key.expiresAt - at) / 86_400_000)),
    },
    at,
  )
}
