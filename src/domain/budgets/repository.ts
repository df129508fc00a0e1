import type { AuditNote } from '../audit/records.ts'
import type { BudgetRecord, ProjectRecord } from '../records.ts'

/** What an edit of a project may change: undefined leaves a field as it is, null clears it. */
export interface ProjectChanges {
  name?: string
  models?: string[] | null
  rpm?: number | null
  tpm?: number | null
  concurrency?: number | null
  allowedIps?: string[] | null
}

/** What an edit of a budget may change. */
export interface BudgetChanges {
  amount?: number
  period?: string
  timeZone?: string
}

/** What one budget spent and holds in one of its periods. */
export interface PeriodFigures {
  spent: number
  reserved: number
}

/**
 * Projects and budgets. Every change also marks the keys it applies to as changed (their `updated_at`), in its
 * transaction, so every instance's key cache reads them again with their new project and budgets (key-cache.ts).
 */
export interface BudgetRepository {
  createProject(project: Omit<ProjectRecord, 'id'>, audit?: AuditNote<ProjectRecord>): Promise<ProjectRecord>
  findProject(id: number): Promise<ProjectRecord | undefined>
  listProjects(accountId?: number): Promise<ProjectRecord[]>
  /** Undefined when there is no such project. */
  updateProject(id: number, changes: ProjectChanges, at: number, audit?: AuditNote<ProjectRecord>): Promise<ProjectRecord | undefined>
  /** Its keys leave it (they stay, in no project) and its budgets go with it; false when there is no such project. */
  deleteProject(id: number, at: number, audit?: AuditNote<ProjectRecord>): Promise<boolean>

  createBudget(budget: Omit<BudgetRecord, 'id'>, audit?: AuditNote<BudgetRecord>): Promise<BudgetRecord>
  findBudget(id: number): Promise<BudgetRecord | undefined>
  listBudgets(accountId?: number): Promise<BudgetRecord[]>
  updateBudget(id: number, changes: BudgetChanges, at: number, audit?: AuditNote<BudgetRecord>): Promise<BudgetRecord | undefined>
  deleteBudget(id: number, at: number, audit?: AuditNote<BudgetRecord>): Promise<boolean>

  /** Every project and budget of these accounts: what keys are read with (governance.ts). */
  ofAccounts(accountIds: readonly number[]): Promise<{ projects: ProjectRecord[]; budgets: BudgetRecord[] }>
  /** A budget's figures in the period starting at `start` (zero when nothing was spent or held in it). */
  periodFigures(budgetId: number, start: number): Promise<PeriodFigures>
  /** The start of a budget's latest period on record (a fixed window's), if any. */
  latestPeriodStart(budgetId: number): Promise<number | undefined>
}
