import { checkWebhookUrl } from '../../core/webhook-url.ts'
import { randomBase62 } from '../../core/ids.ts'
import type { Actor } from '../actor.ts'
import { auditChange } from '../audit/note.ts'
import { webhookObject } from '../audit/objects.ts'
import { DomainError } from '../errors.ts'
import {
  type AlertEvent,
  alertEvents,
  defaultBudgetPercents,
  defaultExpiryDays,
  type WebhookRecord,
  type WebhookRepository,
} from './records.ts'

export interface NewWebhookInput {
  accountId: number
  url: string
  /** Every event when absent (balance.below only with `balanceBelow`). */
  events?: AlertEvent[]
  balanceBelow?: number | null
  expiryDays?: number
  budgetPercents?: number[]
}

export interface CreatedWebhook {
  record: WebhookRecord
  /** The signing secret: shown this once. */
  secret: string
}

/** A webhook's field the rules refuse, named the domain's way (callers name it theirs: `balance_below_usd`). */
export class WebhookInputError extends DomainError {
  constructor(
    readonly field: 'url' | 'events' | 'balanceBelow' | 'expiryDays' | 'budgetPercents',
    readonly rule: string,
  ) {
    super('invalid', `${field} ${rule}`)
  }
}

/** Each alert is a delivery per webhook: an account's fan-out is bounded. */
const maxWebhooksPerAccount = 50

export interface WebhookServiceOptions {
  repository: WebhookRepository
  /** The operator's `webhooks.allow_private_addresses`, read at each change: a reload counts at once. */
  allowPrivate: () => boolean
  /** Told of each change once stored (this instance's alerts reload their webhooks). */
  onChange?: () => void | Promise<void>
  clock?: () => number
}

/**
 * The one owner of webhook changes, for the console, the admin API and the CLI: each is checked here, stored with its
 * audit row (`webhook.create`, `webhook.delete`) in its transaction, and never records the secret. A webhook is not
 * edited: replace it (a new secret comes with a new webhook, so receivers switch over knowingly).
 */
export class WebhookService {
  private readonly clock: () => number

  constructor(private readonly options: WebhookServiceOptions) {
    this.clock = options.clock ?? Date.now
  }

  async create(input: NewWebhookInput, actor: Actor): Promise<CreatedWebhook> {
    const at = this.clock()
    const url = checkUrl(input.url, this.options.allowPrivate())
    const balanceBelow = input.balanceBelow ?? null
    if (balanceBelow !== null && (!Number.isSafeInteger(balanceBelow) || balanceBelow <= 0))
      throw new WebhookInputError('balanceBelow', 'must be more than 0')
    // Every event by default; the balance's only with an amount to be told below.
    const events = checkEvents(input.events ?? alertEvents.filter((event) => event !== 'balance.below' || balanceBelow !== null))
    if (events.includes('balance.below') && balanceBelow === null) {
      throw new WebhookInputError('balanceBelow', 'is needed for balance.below: the balance to be told below')
    }
    const record: WebhookRecord = {
      id: `wh_${randomBase62(12)}`,
      accountId: input.accountId,
      projectId: null,
      url,
      secret: `whsec_${randomBase62(32)}`,
      events,
      balanceBelow,
      expiryDays: checkExpiryDays(input.expiryDays ?? defaultExpiryDays),
      budgetPercents: checkPercents(input.budgetPercents ?? [...defaultBudgetPercents]),
      createdAt: at,
      updatedAt: at,
    }
    if ((await this.options.repository.list(input.accountId)).length >= maxWebhooksPerAccount) {
      throw new DomainError('conflict', `an account has at most ${maxWebhooksPerAccount} webhooks: delete one first`)
    }
    await this.options.repository.insert(record, auditChange(actor, 'webhook.create', webhookObject, { at }))
    await this.options.onChange?.()
    return { record, secret: record.secret }
  }

  /** Delete a webhook and its deliveries (pending ones are not sent). */
  async delete(id: string, actor: Actor): Promise<void> {
    const at = this.clock()
    if (!(await this.options.repository.delete(id, auditChange(actor, 'webhook.delete', webhookObject, { at })))) {
      throw new DomainError('not_found', `webhook ${id} does not exist`)
    }
    await this.options.onChange?.()
  }

  async require(id: string): Promise<WebhookRecord> {
    const webhook = await this.options.repository.findById(id)
    if (!webhook) throw new DomainError('not_found', `webhook ${id} does not exist`)
    return webhook
  }
}

function checkUrl(url: string, allowPrivate: boolean): string {
  const verdict = checkWebhookUrl(url.trim(), { allowPrivate })
  if (!verdict.allowed) {
    const hint = allowPrivate ? '' : ' (an operator may allow loopback and private receivers with webhooks.allow_private_addresses)'
    throw new WebhookInputError('url', `is refused: ${verdict.reason}${hint}`)
  }
  return verdict.url.href
}

function checkEvents(events: readonly AlertEvent[]): AlertEvent[] {
  if (events.length === 0) throw new WebhookInputError('events', `must name at least one of ${alertEvents.join(', ')}`)
  const unknown = events.filter((event) => !alertEvents.includes(event))
  if (unknown.length)
    throw new WebhookInputError('events', `names unknown event(s) ${unknown.join(', ')}; known: ${alertEvents.join(', ')}`)
  return alertEvents.filter((event) => events.includes(event))
}

function checkExpiryDays(days: number): number {
  if (!Number.isInteger(days) || days < 1 || days > 365)
    throw new WebhookInputError('expiryDays', 'must be a whole number of days from 1 to 365')
  return days
}

function checkPercents(percents: number[]): number[] {
  if (
    percents.length === 0 ||
    percents.length > 10 ||
    percents.some((percent) => !Number.isInteger(percent) || percent < 1 || percent > 1000)
  ) {
    throw new WebhookInputError('budgetPercents', 'must be 1 to 10 whole percentages from 1 to 1000')
  }
  return [...new Set(percents)].sort((left, right) => left - right)
}
