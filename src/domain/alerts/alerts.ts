import type { Logger } from '../../core/logger.ts'
import { silentLogger } from '../../core/logger.ts'
import { reportFailure } from '../../core/report-failure.ts'
import type { KeyRecord } from '../records.ts'
import { balanceBelow, budgetThreshold, keyExpiring, onceKeys, reachedPercents, type SpendObservation } from './payloads.ts'
import type { NewDelivery, WebhookRecord, WebhookRepository } from './records.ts'

export interface AlertsOptions {
  repository: WebhookRepository
  /** Called once alerts are stored, so the deliverer sends them now rather than at its next poll. */
  onQueued?: () => void
  /** How long balance changes gather before the balances are read (one read per account per round). */
  balanceDelayMs?: number
  logger?: Logger
  clock?: () => number
}

/**
 * What decides that an alert is due, and stores it for the deliverer (deliverer.ts) — never on a request's path.
 *
 * Every hook here is cheap and synchronous for its caller: the webhooks are held in memory (reloaded on each change
 * here and every `refresh` elsewhere), a balance change only marks its account when some webhook watches its balance,
 * and a spend report only compares integers. The work that needs the database — reading a balance, storing an alert
 * — runs afterwards, in the background. Storing is insert-or-keep on (webhook, dedupe key), so an alert noticed twice,
 * or by several instances, is stored once: each threshold once per period, whoever saw it.
 */
export class Alerts {
  private byAccount = new Map<number, WebhookRecord[]>()
  /** Accounts whose balance moved since the last round of reads. */
  private readonly moved = new Set<number>()
  /** Set while moved balances wait for their round; `readingBalances` while a round reads them. */
  private balanceTimer: ReturnType<typeof setTimeout> | undefined
  private readingBalances = false
  /** Alerts stored (or being stored) by this instance: a spend reported on every settle stores each threshold once. */
  private readonly stored = new Set<string>()
  private readonly logger: Logger
  private readonly clock: () => number
  private pending: Promise<unknown> = Promise.resolve()

  constructor(private readonly options: AlertsOptions) {
    this.logger = options.logger ?? silentLogger
    this.clock = options.clock ?? Date.now
  }

  /** Read every webhook again (at start, after a change here, and now and then for changes made elsewhere). */
  async refresh(): Promise<void> {
    const byAccount = new Map<number, WebhookRecord[]>()
    for (const webhook of await this.options.repository.list()) {
      const list = byAccount.get(webhook.accountId) ?? []
      list.push(webhook)
      byAccount.set(webhook.accountId, list)
    }
    this.byAccount = byAccount
  }

  /** The ledger committed settlements for this account: its balance is read soon, if a webhook watches it. */
  balanceMoved(accountId: number): void {
    if (!this.byAccount.get(accountId)?.some(watchesBalance)) return
    this.moved.add(accountId)
    if (!this.readingBalances) this.scheduleBalances()
  }

  /**
   * A budget's spend after a settlement (the budgets feature calls this, with integers): each threshold reached in
   * this period is stored once. Returns at once; storing happens in the background.
   */
  spendObserved(observation: SpendObservation): void {
    const webhooks = this.byAccount.get(observation.scope.accountId)
    if (!webhooks) return
    const at = this.clock()
    const due: NewDelivery[] = []
    for (const webhook of webhooks) {
      if (!webhook.events.includes('budget.threshold')) continue
      // A project's webhook hears only of its project's budgets (and its keys'); an account's hears of all.
      if (webhook.projectId !== null && webhook.projectId !== observation.scope.projectId) continue
      for (const percent of reachedPercents(webhook.budgetPercents, observation.spent, observation.limit)) {
        const once = `${webhook.id}|${onceKeys.budgetThreshold(observation, percent)}`
        if (this.stored.has(once)) continue
        this.remember(once)
        due.push(budgetThreshold(webhook, observation, percent, at))
      }
    }
    // store() reports its own failures: nothing to wait for here.
    if (due.length) void this.store(due)
  }

  /** Keys within their webhooks' `expiry_days` of expiring (and not expired, nor revoked): stored once per expiry. */
  checkExpiringKeys(keys: readonly KeyRecord[]): Promise<void> {
    const at = this.clock()
    const due: NewDelivery[] = []
    for (const key of keys) {
      if (key.expiresAt === null || key.revokedAt !== null || key.expiresAt <= at) continue
      for (const webhook of this.byAccount.get(key.accountId) ?? []) {
        if (!webhook.events.includes('key.expiring') || key.expiresAt - at > webhook.expiryDays * 86_400_000) continue
        const once = `${webhook.id}|${onceKeys.keyExpiring(key.id, key.expiresAt)}`
        if (this.stored.has(once)) continue
        this.remember(once)
        due.push(keyExpiring(webhook, { id: key.id, name: key.name, expiresAt: key.expiresAt }, at))
      }
    }
    return due.length ? this.store(due) : Promise.resolve()
  }

  /**
   * Whether a webhook of this account would hear of a budget's spend: the budgets feature may skip reading a spent
   * figure it does not hold in memory when none would (a cheap lookup in memory).
   */
  watchesBudgets(accountId: number): boolean {
    return this.byAccount.get(accountId)?.some((webhook) => webhook.events.includes('budget.threshold')) ?? false
  }

  /** Whether any webhook watches anything (the gateway skips its hooks when none does). */
  get watching(): boolean {
    return this.byAccount.size > 0
  }

  /** Resolves once everything noticed so far is stored (tests; shutdown). */
  /** Balances waiting for their round are read at once; resolves once everything noticed so far is stored (tests; shutdown). */
  async settled(): Promise<void> {
    while (this.balanceTimer !== undefined || this.readingBalances) {
      if (this.balanceTimer !== undefined) {
        clearTimeout(this.balanceTimer)
        this.readBalances()
      }
      await this.pending
    }
    await this.pending
  }

  /** No more rounds (the gateway stops; `settled` first stores what was noticed). */
  stop(): void {
    clearTimeout(this.balanceTimer)
    this.balanceTimer = undefined
    this.moved.clear()
  }

  private scheduleBalances(): void {
    this.balanceTimer ??= setTimeout(() => this.readBalances(), this.options.balanceDelayMs ?? 100)
  }

  private readBalances(): void {
    this.balanceTimer = undefined
    this.readingBalances = true
    const accounts = [...this.moved]
    this.moved.clear()
    void this.store(
      (async () => {
        const due: NewDelivery[] = []
        for (const accountId of accounts) {
          const state = await this.options.repository.balanceOf(accountId)
          if (!state) continue
          for (const webhook of this.byAccount.get(accountId) ?? []) {
            if (!watchesBalance(webhook) || state.balance >= webhook.balanceBelow!) continue
            const once = `${webhook.id}|${onceKeys.balanceBelow(webhook.balanceBelow!, state.lastCreditId)}`
            if (this.stored.has(once)) continue
            this.remember(once)
            due.push(balanceBelow(webhook, state.balance, state.lastCreditId, this.clock()))
          }
        }
        return due
      })(),
      () => {
        this.readingBalances = false
        // Balances that moved while these were read get their own round.
        if (this.moved.size) this.scheduleBalances()
      },
    )
  }

  /** Store alerts in the background, one write after another; a failure is logged, and forgotten so a later notice tries again. */
  private store(due: NewDelivery[] | Promise<NewDelivery[]>, after?: () => void): Promise<void> {
    const write = this.pending
      .then(async () => {
        const deliveries = await due
        try {
          if ((await this.options.repository.enqueue(deliveries)) > 0) this.options.onQueued?.()
        } catch (error) {
          for (const delivery of deliveries) this.stored.delete(`${delivery.webhookId}|${delivery.dedupeKey}`)
          throw error
        }
      })
      .catch((error: unknown) => {
        reportFailure(this.logger, error, { route: 'alerts' })
      })
      .finally(after)
    this.pending = write
    return write
  }

  /** Bounded: past this many, the set starts again (the database's unique index is what guarantees once). */
  private remember(once: string): void {
    if (this.stored.size >= 100_000) this.stored.clear()
    this.stored.add(once)
  }
}

const watchesBalance = (webhook: WebhookRecord) => webhook.balanceBelow !== null && webhook.events.includes('balance.below')
