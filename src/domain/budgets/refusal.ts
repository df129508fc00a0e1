import { GatewayError } from '../../core/errors.ts'
import { formatUsd } from '../../core/money.ts'
import type { BudgetRecord, KeyRecord } from '../records.ts'

const periodWords: Record<string, string> = { day: 'daily', week: 'weekly', month: 'monthly', total: 'lifetime' }

/** `project "team-a"'s $50.00 monthly budget`: whose budget it is and what it is, as a refusal names it. */
function describeBudget(budget: BudgetRecord, key?: Pick<KeyRecord, 'project'>): string {
  const owner =
    budget.scope === 'account'
      ? "this account's"
      : budget.scope === 'project'
        ? key?.project
          ? `project "${key.project.name}"'s`
          : "this API key's project's"
        : "this API key's"
  const period = periodWords[budget.period] ?? `${budget.period} window`
  const zone = budget.timeZone !== 'UTC' && ['day', 'week', 'month'].includes(budget.period) ? ` (${budget.timeZone})` : ''
  return `${owner} $${formatUsd(budget.amount)} ${period} budget${zone}`
}

/**
 * The 403 of a request a scheduled budget cannot cover: it names the budget's scope and when its period resets. No
 * Retry-After: waiting for a new period is not a retry a client should make on its own.
 */
export function budgetExceeded(
  amount: number,
  budget: BudgetRecord | undefined,
  resetsAt: number | undefined,
  key?: Pick<KeyRecord, 'project'>,
): GatewayError {
  const what = budget ? describeBudget(budget, key) : 'a budget that applies to this API key'
  const when = resetsAt === undefined ? 'It does not reset.' : `It resets at ${new Date(resetsAt).toISOString()}.`
  return new GatewayError(
    'insufficient_balance',
    `Budget exceeded: this request may cost up to $${formatUsd(amount)}, more than is left of ${what}. ${when}`,
    { code: 'budget_exceeded' },
  )
}
