import type { Config } from '../config/types.ts'
import { randomBase62 } from '../core/ids.ts'
import type { Logger } from '../core/logger.ts'
import { reportFailure } from '../core/report-failure.ts'
import { defaultRetryPolicy } from '../core/webhook-retry.ts'
import { Alerts } from '../domain/alerts/alerts.ts'
import { Deliverer } from '../domain/alerts/deliverer.ts'
import { WebhookService } from '../domain/alerts/webhook-service.ts'
import type { LedgerWrite } from '../domain/records.ts'
import type { Store } from '../domain/repositories.ts'
import { createWebhookSender } from './webhook-sender.ts'
import { watchBudgetSpend } from './budget-spend.ts'

/** How often an instance reads the webhooks again, for changes made by another instance or the CLI. */
const webhookRefreshMs = 10_000

/** Alerts as one instance runs them: what decides (Alerts), what sends (Deliverer), what changes webhooks (WebhookService). */
export interface Alerting {
  alerts: Alerts
  deliverer: Deliverer
  webhooks: WebhookService
  /** The ledger's hook (ledger-writer.ts `onWritten`): settled accounts' balances are looked at, if a webhook watches them. */
  ledgerWritten(batch: readonly LedgerWrite[]): void
  start(): Promise<void>
  stop(): Promise<void>
}

/**
 * `settings` are read once (timers, timeouts: a restart applies them); `current` at each use, so a reload's
 * `webhooks.allow_private_addresses` counts at once.
 */
export function createAlerting(store: Store, settings: Config['webhooks'], current: () => Config, logger: Logger): Alerting {
  const allowPrivate = () => current().webhooks.allowPrivateAddresses
  const deliverer = new Deliverer({
    repository: store.webhooks,
    send: createWebhookSender(allowPrivate),
    owner: `instance_${randomBase62(12)}`,
    logger,
    pollMs: settings.pollMs,
    timeoutMs: settings.timeoutMs,
    retryPolicy: { ...defaultRetryPolicy, firstDelayMs: settings.firstRetryMs },
  })
  const alerts = new Alerts({ repository: store.webhooks, logger, onQueued: () => deliverer.wake() })
  const webhooks = new WebhookService({ repository: store.webhooks, allowPrivate, onChange: () => alerts.refresh() })
  const budgetsCharged = watchBudgetSpend(store, alerts, logger)
  const timers: ReturnType<typeof setInterval>[] = []
  const every = (ms: number, task: () => Promise<unknown>, route: string) => {
    const timer = setInterval(() => void task().catch((error: unknown) => reportFailure(logger, error, { route })), ms)
    timer.unref?.()
    timers.push(timer)
  }
  /** The keys of each account with a webhook told of expiries, read once per account. */
  const checkExpiringKeys = async () => {
    const accounts = new Set(
      (await store.webhooks.list()).filter((webhook) => webhook.events.includes('key.expiring')).map((webhook) => webhook.accountId),
    )
    for (const accountId of accounts) await alerts.checkExpiringKeys(await store.keys.list(accountId))
  }
  return {
    alerts,
    deliverer,
    webhooks,
    ledgerWritten(batch) {
      if (!alerts.watching) return
      for (const write of batch) if (write.kind === 'settle' && write.usage.cost > 0) alerts.balanceMoved(write.usage.accountId)
      budgetsCharged.written(batch)
    },
    async start() {
      await alerts.refresh()
      deliverer.start()
      every(webhookRefreshMs, () => alerts.refresh(), 'webhook refresh')
      every(settings.expiryCheckS * 1000, checkExpiringKeys, 'expiring keys')
      void checkExpiringKeys().catch((error: unknown) => reportFailure(logger, error, { route: 'expiring keys' }))
    },
    async stop() {
      for (const timer of timers) clearInterval(timer)
      deliverer.stop()
      await budgetsCharged.flush()
      await alerts.settled()
      alerts.stop()
      // An attempt still waiting on a slow receiver is not waited for long: its claim runs out and an instance sends it again.
      await Promise.race([deliverer.idle(), Bun.sleep(1000)])
    },
  }
}
