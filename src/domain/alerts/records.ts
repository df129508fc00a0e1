import type { AuditNote } from '../audit/records.ts'

/**
 * Alerts: what an account (or one of its projects) is told of, and where. Money is integer nano-dollars, times epoch
 * milliseconds (as everywhere in the domain).
 */

/** What a webhook may be told of. */
export const alertEvents = ['balance.below', 'budget.threshold', 'key.expiring'] as const
export type AlertEvent = (typeof alertEvents)[number]

/** The thresholds of a budget that are told of when no others are set: half, most, and all of it spent. */
export const defaultBudgetPercents: readonly number[] = [50, 80, 100]
export const defaultExpiryDays = 7

export interface WebhookRecord {
  id: string
  accountId: number
  /** A project's own webhook (issue 27's projects); null: the whole account's. */
  projectId: string | null
  url: string
  /**
   * Signs every delivery (HMAC-SHA256), so it must be kept as made: the gateway has to sign with it, and any key to
   * decrypt it would have to sit beside the database on the same machine. It is shown once, when made, and never
   * again: not in listings, audit rows, logs or delivery records.
   */
  secret: string
  events: AlertEvent[]
  /** `balance.below`: told once the account's balance falls below this (again after each credit). */
  balanceBelow: number | null
  /** `key.expiring`: told this many days before a key of the account expires. */
  expiryDays: number
  /** `budget.threshold`: the percentages of a budget that are told of, once each per period. */
  budgetPercents: number[]
  createdAt: number
  updatedAt: number
}

export type DeliveryStatus = 'pending' | 'delivered' | 'failed'

/** One alert to one webhook: sent, tried again with backoff for a day, or given up (`failed`). */
export interface DeliveryRecord {
  id: string
  webhookId: string
  accountId: number
  event: AlertEvent
  /** What makes the alert once-only: a threshold in a period, a key's expiry, a balance between credits. */
  dedupeKey: string
  /** The JSON body, the same bytes on every attempt (each attempt is signed with its own timestamp). */
  payload: string
  status: DeliveryStatus
  attempts: number
  nextAttemptAt: number
  firstAttemptAt: number | null
  lastAttemptAt: number | null
  /** The receiver's HTTP status on the last attempt; null when it was never reached. */
  lastStatus: number | null
  lastError: string | null
  createdAt: number
  deliveredAt: number | null
}

/** An alert decided on, before it is stored: the store keeps the first of each (webhook, dedupe key) and drops the rest. */
export type NewDelivery = Pick<DeliveryRecord, 'id' | 'webhookId' | 'accountId' | 'event' | 'dedupeKey' | 'payload' | 'createdAt'>

/** How an attempt ended, as the deliverer records it (only by the instance that claimed the delivery). */
export interface AttemptOutcome {
  status: DeliveryStatus
  at: number
  firstAttemptAt: number
  nextAttemptAt: number
  lastStatus: number | null
  lastError: string | null
}

export interface DeliveryFilter {
  accountId?: number
  webhookId?: string
  status?: DeliveryStatus
}

/** The port db implements (sqlite/webhooks.ts, postgres/webhooks.ts). */
export interface WebhookRepository {
  insert(webhook: WebhookRecord, audit?: AuditNote<WebhookRecord>): Promise<void>
  /** The webhook and its deliveries; false when there was none. */
  delete(id: string, audit?: AuditNote<WebhookRecord>): Promise<boolean>
  findById(id: string): Promise<WebhookRecord | undefined>
  /** Oldest first; every account's, or one account's. */
  list(accountId?: number): Promise<WebhookRecord[]>
  /** Store the alerts not stored yet (unique per webhook and dedupe key); returns how many were new. */
  enqueue(deliveries: NewDelivery[]): Promise<number>
  /**
   * Take up to `max` deliveries that are due and not claimed by a live instance, for `owner` until `claimedUntil`:
   * another instance passes them over (PostgreSQL: FOR UPDATE SKIP LOCKED), so each attempt is made by one instance.
   */
  claimDue(owner: string, now: number, claimedUntil: number, max: number): Promise<DeliveryRecord[]>
  /** Record an attempt of a delivery this owner claimed, and free the claim; false when the claim was lost. */
  finishAttempt(id: string, owner: string, outcome: AttemptOutcome): Promise<boolean>
  /** Newest first. */
  listDeliveries(filter: DeliveryFilter, limit: number): Promise<DeliveryRecord[]>
  /** The account's balance and the id of its latest credit (a credit re-arms `balance.below`); undefined: no account. */
  balanceOf(accountId: number): Promise<{ balance: number; lastCreditId: number } | undefined>
}
