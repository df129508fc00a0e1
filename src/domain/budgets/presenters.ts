import type { BudgetRecord, ProjectRecord } from '../records.ts'
import { type BudgetFigures, figuresJson } from './key-view.ts'

const isoTime = (time: number) => new Date(time).toISOString()

/** A project as the console, the admin API and the CLI's `--json` show it (`keys`: how many keys are in it). */
export function projectJson(project: ProjectRecord, keys: number) {
  return {
    id: project.id,
    account_id: project.accountId,
    name: project.name,
    models: project.models,
    rpm: project.rpm,
    tpm: project.tpm,
    concurrency: project.concurrency,
    allowed_ips: project.allowedIps,
    keys,
    created_at: isoTime(project.createdAt),
  }
}

/** A budget with its current period's figures: spent, held, remaining, when the period started and resets. */
export function budgetJson(budget: BudgetRecord, figures: BudgetFigures) {
  return {
    id: budget.id,
    account_id: budget.accountId,
    scope: budget.scope,
    project_id: budget.projectId,
    key_id: budget.keyId,
    period: figures.period,
    time_zone: budget.timeZone,
    ...figuresJson(figures),
    created_at: isoTime(budget.createdAt),
  }
}
