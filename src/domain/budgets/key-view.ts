import { formatBudgetPeriod } from '../../core/budget-period/index.ts'
import { formatUsd } from '../../core/money.ts'
import { periodOfText, periodNow } from './periods.ts'
import type { BudgetRecord, KeyRecord } from '../records.ts'
import type { BudgetRepository } from './repository.ts'

const isoTime = (time: number | undefined | null) => (time == null ? null : new Date(time).toISOString())

/** One budget as a key holder sees it: what it is, what is spent and held in its current period, when it resets. */
export interface BudgetFigures {
  budget: BudgetRecord | undefined
  scope: 'account' | 'project' | 'key'
  period: string
  timeZone: string
  amount: number
  spent: number
  reserved: number
  periodStart: number | undefined
  resetsAt: number | undefined
}

/**
 * The figures of every budget that applies to a key, now: each scheduled budget in its current period (a fixed
 * window not open yet reads as unspent, its reset unknown until a request opens it), and the key's lifetime budget.
 */
export async function budgetFigures(key: KeyRecord, repository: BudgetRepository, now: number): Promise<BudgetFigures[]> {
  const figures: BudgetFigures[] = []
  for (const budget of key.budgets ?? []) figures.push(await figuresOf(budget, repository, now))
  if (key.budget !== null) {
    figures.push({
      budget: undefined,
      scope: 'key',
      period: 'total',
      timeZone: 'UTC',
      amount: key.budget,
      spent: key.spent,
      reserved: 0,
      periodStart: undefined,
      resetsAt: undefined,
    })
  }
  return figures
}

/** One scheduled budget's figures in its current period at `now`. */
export async function figuresOf(budget: BudgetRecord, repository: BudgetRepository, now: number): Promise<BudgetFigures> {
  const period = periodOfText(budget.period)
  const windowStart = period.kind === 'window' ? await repository.latestPeriodStart(budget.id) : undefined
  const current = periodNow(budget, now, windowStart)
  const counted = current.opened ? { spent: 0, reserved: 0 } : await repository.periodFigures(budget.id, current.start)
  return {
    budget,
    scope: budget.scope,
    period: formatBudgetPeriod(period),
    timeZone: budget.timeZone,
    amount: budget.amount,
    ...counted,
    periodStart: current.opened || period.kind === 'total' ? undefined : current.start,
    resetsAt: current.opened ? undefined : current.resetsAt,
  }
}

/** A budget's figures as exact decimal strings and ISO times (GET /v1/key, the console, the admin API, the CLI). */
export function figuresJson(figure: BudgetFigures) {
  return {
    amount_usd: formatUsd(figure.amount),
    spent_usd: formatUsd(figure.spent),
    reserved_usd: formatUsd(figure.reserved),
    remaining_usd: formatUsd(Math.max(0, figure.amount - figure.spent - figure.reserved)),
    period_start: isoTime(figure.periodStart),
    resets_at: isoTime(figure.resetsAt),
  }
}

/** GET /v1/key's answer: the key's limits, budgets (exact decimal strings), expiry and models. */
export function keyViewJson(key: KeyRecord, figures: readonly BudgetFigures[], models: readonly string[]) {
  const project = key.project ?? null
  return {
    object: 'key',
    id: key.id,
    name: key.name,
    project: project && { id: project.id, name: project.name },
    expires_at: isoTime(key.expiresAt),
    models,
    limits: {
      // The address rules that apply (each must allow): the caller is inside them already, so they reveal nothing new.
      rpm: key.rpm,
      tpm: key.tpm,
      concurrency: key.concurrency,
      allowed_ips: key.allowedIps,
      project: project && { rpm: project.rpm, tpm: project.tpm, concurrency: project.concurrency, allowed_ips: project.allowedIps },
    },
    budgets: figures.map((figure) => ({
      id: figure.budget?.id ?? null,
      scope: figure.scope,
      scope_name: figure.scope === 'project' ? (project?.name ?? null) : null,
      period: figure.period,
      time_zone: figure.timeZone,
      ...figuresJson(figure),
    })),
  }
}
