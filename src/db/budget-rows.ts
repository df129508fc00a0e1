import type { ProjectChanges } from '../domain/budgets/repository.ts'
import type { BudgetRecord, BudgetScope, ProjectRecord } from '../domain/records.ts'

/** A projects row (either dialect) as the domain's record: its model list is stored as JSON text. */
export function projectOf(row: Omit<ProjectRecord, 'models'> & { models: string | null }): ProjectRecord {
  return { ...row, models: row.models === null ? null : (JSON.parse(row.models) as string[]) }
}

export function budgetOf(row: Omit<BudgetRecord, 'scope'> & { scope: string }): BudgetRecord {
  return { ...row, scope: row.scope as BudgetScope }
}

/** The columns an edit sets: only the fields given, models as their JSON text. */
export function projectColumns(changes: ProjectChanges) {
  const { models, ...rest } = changes
  const defined = Object.fromEntries(Object.entries(rest).filter(([, value]) => value !== undefined))
  return models === undefined ? defined : { ...defined, models: models === null ? null : JSON.stringify(models) }
}
