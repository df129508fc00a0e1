import type { Logger } from '../core/logger.ts'
import { reportFailure } from '../core/report-failure.ts'
import type { Alerts } from '../domain/alerts/alerts.ts'
import { decodePeriodRefs } from '../domain/budgets/period-refs.ts'
import type { LedgerWrite } from '../domain/records.ts'
import type { Store } from '../domain/repositories.ts'

/**
 * The budgets' side of `budget.threshold` alerts: after a batch of bills is committed, the budget periods it charged
 * are read (a moment later, all of them at once, off every request's path) and each one's spend told to the alerts,
 * which store each threshold once per period. Only while some webhook watches anything.
 */
export interface BudgetSpendWatch {
  /** The ledger's hook: the periods a committed batch charged are noted, and read a moment later. */
  written(batch: readonly LedgerWrite[]): void
  /** Read what is noted now (shutdown: the last bills' thresholds are still told). */
  flush(): Promise<void>
}

export function watchBudgetSpend(store: Store, alerts: Alerts, logger: Logger, delayMs = 100): BudgetSpendWatch {
  const charged = new Set<string>()
  let timer: ReturnType<typeof setTimeout> | undefined
  const report = async () => {
    const refs = decodePeriodRefs([...charged].join(','))
    charged.clear()
    for (const { budgetId, start } of refs) {
      const budget = await store.budgets.findBudget(budgetId)
      // Its period's spend is read only when a webhook of its account would hear of it.
      if (!budget || !alerts.watchesBudgets(budget.accountId)) continue
      const { spent } = await store.budgets.periodFigures(budgetId, start)
      alerts.spendObserved({
        scope: {
          kind: budget.scope,
          accountId: budget.accountId,
          projectId: budget.projectId === null ? null : String(budget.projectId),
          keyId: budget.keyId,
        },
        budgetId: String(budget.id),
        periodStart: start,
        spent,
        limit: budget.amount,
      })
    }
  }
  let reporting: Promise<void> = Promise.resolve()
  const reportNow = () => {
    clearTimeout(timer)
    timer = undefined
    reporting = reporting.then(report).catch((error: unknown) => {
      reportFailure(logger, error, { route: 'budget alerts' })
    })
    return reporting
  }
  return {
    written(batch) {
      if (!alerts.watching) return
      for (const write of batch) {
        if (write.kind !== 'settle' || write.usage.cost === 0 || !write.budgetPeriods) continue
        for (const ref of write.budgetPeriods.split(',')) charged.add(ref)
      }
      if (charged.size === 0 || timer !== undefined) return
      timer = setTimeout(() => void reportNow(), delayMs)
      timer.unref?.()
    },
    flush: () => (charged.size > 0 ? reportNow() : reporting),
  }
}
