import { type Column, eq } from 'drizzle-orm'
import { listOf, textOf } from './list-columns.ts'
import type { BudgetRecord, BudgetScope, ProjectRecord } from '../domain/records.ts'

type ListColumns = 'models' | 'allowedIps'

/** A projects row (either dialect) as the domain's record: its model and address lists are stored as JSON text. */
export function projectOf(row: Omit<ProjectRecord, ListColumns> & Record<ListColumns, string | null>): ProjectRecord {
  return { ...row, models: listOf(row.models), allowedIps: listOf(row.allowedIps) }
}

/** A new project's row: its lists as JSON text. */
export function projectRow(project: Omit<ProjectRecord, 'id'>) {
  return { ...project, models: textOf(project.models), allowedIps: textOf(project.allowedIps) }
}

export function budgetOf(row: Omit<BudgetRecord, 'scope'> & { scope: string }): BudgetRecord {
  return { ...row, scope: row.scope as BudgetScope }
}

/** The keys a budget applies to: one key, a project's keys, or all of its account's. */
export const scopeOf = (budget: { scope: string; accountId: number; projectId: number | null; keyId: string | null }) =>
  budget.scope === 'key'
    ? { keyId: budget.keyId! }
    : budget.scope === 'project'
      ? { projectId: budget.projectId! }
      : { accountId: budget.accountId }

/** Oldest first: the order projects and budgets are listed in. */
export const byId = (a: { id: number }, b: { id: number }) => a.id - b.id

/** Only one account's rows, or (no account given) every row. */
export const ofAccount = (column: Column, accountId: number | undefined) => (accountId === undefined ? undefined : eq(column, accountId))
