import type { Logger } from '../../core/logger.ts'
import { silentLogger } from '../../core/logger.ts'
import { reportFailure } from '../../core/report-failure.ts'
import { defaultRetryPolicy, isDelivered, nextAttemptAt, type RetryPolicy } from '../../core/webhook-retry.ts'
import { signatureHeader, signWebhook } from '../../core/webhook-signature.ts'
import type { AttemptOutcome, DeliveryRecord, WebhookRepository } from './records.ts'

/** One POST of a signed body. Resolves with the receiver's status; throws when it could not be reached (or was refused). */
export type WebhookSend = (request: {
  url: string
  body: string
  headers: Record<string, string>
  timeoutMs: number
}) => Promise<{ status: number; retryAfterMs?: number }>

export interface DelivererOptions {
  repository: WebhookRepository
  send: WebhookSend
  /** This instance, as its claims name it. */
  owner: string
  pollMs: number
  /** The longest one attempt may take; a claim lasts a while longer, then another instance may take the delivery. */
  timeoutMs: number
  /** Deliveries in flight at once, per instance. */
  concurrency?: number
  retryPolicy?: RetryPolicy
  logger?: Logger
  clock?: () => number
  random?: () => number
}

/**
 * Sends stored alerts, in the background: due deliveries are claimed (one instance each: claimDue), signed with the
 * webhook's secret at the moment of each attempt (so the timestamp is fresh and a receiver's replay window holds for
 * retries too), POSTed, and the outcome recorded: delivered on a 2xx, otherwise tried again with backoff for a day
 * (core/webhook-retry.ts), then `failed`. Requests never wait for any of it: a slow or dead receiver only slows this.
 */
export class Deliverer {
  private timer: ReturnType<typeof setInterval> | undefined
  private claiming: Promise<void> | undefined
  private readonly inFlight = new Set<Promise<void>>()
  private again = false
  private readonly logger: Logger
  private readonly clock: () => number

  constructor(private readonly options: DelivererOptions) {
    this.logger = options.logger ?? silentLogger
    this.clock = options.clock ?? Date.now
  }

  start(): void {
    this.timer = setInterval(() => this.wake(), this.options.pollMs)
    this.timer.unref?.()
    this.wake()
  }

  /** Look for due deliveries now (new alerts were stored, an attempt ended); one claim at a time, another after it when asked meanwhile. */
  wake(): void {
    if (this.claiming !== undefined) {
      this.again = true
      return
    }
    this.claiming = this.claim()
      .catch((error: unknown) => {
        reportFailure(this.logger, error, { route: 'webhook deliveries' })
      })
      .finally(() => {
        this.claiming = undefined
        if (this.again) {
          this.again = false
          this.wake()
        }
      })
  }

  /** Resolves when no claim and no attempt is in progress: tests, and shutdown. */
  async idle(): Promise<void> {
    while (this.claiming !== undefined || this.inFlight.size > 0) await Promise.all([this.claiming, ...this.inFlight])
  }

  stop(): void {
    clearInterval(this.timer)
  }

  /**
   * Claim as many due deliveries as there are free places, and start them without waiting for them: a slow receiver
   * holds only its own places, and each attempt that ends makes room for the next delivery at once.
   */
  private async claim(): Promise<void> {
    const room = (this.options.concurrency ?? 16) - this.inFlight.size
    if (room <= 0) return
    const now = this.clock()
    const claimed = await this.options.repository.claimDue(this.options.owner, now, now + this.options.timeoutMs + 30_000, room)
    for (const delivery of claimed) {
      const attempt: Promise<void> = this.attempt(delivery)
        .catch((error: unknown) => {
          reportFailure(this.logger, error, { route: 'webhook deliveries' })
        })
        .finally(() => {
          this.inFlight.delete(attempt)
          this.wake()
        })
      this.inFlight.add(attempt)
    }
  }

  private async attempt(delivery: DeliveryRecord): Promise<void> {
    const webhook = await this.options.repository.findById(delivery.webhookId)
    const at = this.clock()
    const firstAttemptAt = delivery.firstAttemptAt ?? at
    let status: number | null = null
    let error: string | null = null
    let retryAfterMs: number | undefined
    if (!webhook) error = 'the webhook was deleted'
    else {
      try {
        const answer = await this.options.send({
          url: webhook.url,
          body: delivery.payload,
          timeoutMs: this.options.timeoutMs,
          headers: {
            'content-type': 'application/json',
            'user-agent': 'Tollgate-Webhooks/1',
            'tollgate-event': delivery.event,
            'tollgate-delivery': delivery.id,
            [signatureHeader.toLowerCase()]: signWebhook(delivery.payload, webhook.secret, Math.floor(at / 1000)),
          },
        })
        status = answer.status
        retryAfterMs = answer.retryAfterMs
        if (!isDelivered(status)) error = `the receiver answered ${status}`
      } catch (failure) {
        error = (failure as Error).message ?? String(failure)
      }
    }
    const finished = this.clock()
    const next =
      webhook && error !== null
        ? nextAttemptAt(
            { attempt: delivery.attempts + 1, firstAttemptAt, failedAt: finished, retryAfterMs },
            (this.options.random ?? Math.random)(),
            this.options.retryPolicy ?? defaultRetryPolicy,
          )
        : undefined
    const outcome: AttemptOutcome = {
      status: error === null ? 'delivered' : next === undefined ? 'failed' : 'pending',
      at: finished,
      firstAttemptAt,
      nextAttemptAt: next ?? finished,
      lastStatus: status,
      lastError: error === null ? null : error.slice(0, 500),
    }
    if (outcome.status === 'failed') {
      this.logger.warn(
        { delivery_id: delivery.id, webhook_id: delivery.webhookId, attempts: delivery.attempts + 1, err: outcome.lastError },
        'a webhook delivery was given up',
      )
    }
    await this.options.repository.finishAttempt(delivery.id, this.options.owner, outcome)
  }
}
