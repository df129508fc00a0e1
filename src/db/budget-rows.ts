import { type Column, eq } from 'drizzle-orm'
import type { ProjectChanges } from '../domain/budgets/repository.ts'
import type { BudgetRecord, BudgetScope, ProjectRecord } from '../domain/records.ts'

type ListColumns = 'models' | 'allowedIps'

const listOf = (text: string | null) => (text === null ? null : (JSON.parse(text) as string[]))
const textOf = (list: readonly string[] | null) => (list === null ? null : JSON.stringify(list))

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

/** The columns an edit sets: only the fields given, lists as their JSON text. */
export function projectColumns(changes: ProjectChanges) {
  const { models, allowedIps, ...rest } = changes
  const defined: Record<string, unknown> = Object.fromEntries(Object.entries(rest).filter(([, value]) => value !== undefined))
  if (models !== undefined) defined.models = textOf(models)
  if (allowedIps !== undefined) defined.allowedIps = textOf(allowedIps)
  return defined
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
