import { and, desc, eq, inArray, sql } from 'drizzle-orm'
import type { BudgetRepository } from '../../domain/budgets/repository.ts'
import { budgetOf, byId, ofAccount, projectOf, projectRow, scopeOf } from '../budget-rows.ts'
import { changedColumns } from '../list-columns.ts'
import { writeAudit } from './audit.ts'
import { apiKeys, budgetPeriods, budgets, projects } from './schema.ts'
import type { SqliteDatabase } from './store.ts'

type Transaction = Parameters<Parameters<SqliteDatabase['transaction']>[0]>[0]

/** Mark the keys a project or budget applies to as changed, so every key cache reads them again (repository.ts). */
function touchKeys(tx: Transaction, where: { accountId?: number; projectId?: number; keyId?: string }, at: number): void {
  const condition =
    where.keyId !== undefined
      ? eq(apiKeys.id, where.keyId)
      : where.projectId !== undefined
        ? eq(apiKeys.projectId, where.projectId)
        : eq(apiKeys.accountId, where.accountId!)
  tx.update(apiKeys)
    .set({ updatedAt: sql`max(${apiKeys.updatedAt} + 1, ${at})` })
    .where(condition)
    .run()
}

export function createSqliteBudgets(db: SqliteDatabase): BudgetRepository {
  const immediate = { behavior: 'immediate' } as const
  return {
    async createProject(project, audit) {
      return db.transaction((tx) => {
        const row = projectOf(tx.insert(projects).values(projectRow(project)).returning().get())
        writeAudit(tx, audit?.(undefined, row))
        return row
      }, immediate)
    },
    async findProject(id) {
      const row = db.select().from(projects).where(eq(projects.id, id)).get()
      return row && projectOf(row)
    },
    async listProjects(accountId) {
      const rows = db.select().from(projects).where(ofAccount(projects.accountId, accountId)).all()
      return rows.map(projectOf).sort(byId)
    },
    async updateProject(id, changes, at, audit) {
      return db.transaction((tx) => {
        const before = tx.select().from(projects).where(eq(projects.id, id)).get()
        if (!before) return undefined
        const after = projectOf(
          tx
            .update(projects)
            .set({ ...changedColumns(changes), updatedAt: at })
            .where(eq(projects.id, id))
            .returning()
            .get()!,
        )
        touchKeys(tx, { projectId: id }, at)
        writeAudit(tx, audit?.(projectOf(before), after))
        return after
      }, immediate)
    },
    async deleteProject(id, at, audit) {
      return db.transaction((tx) => {
        const before = tx.select().from(projects).where(eq(projects.id, id)).get()
        if (!before) return false
        touchKeys(tx, { projectId: id }, at)
        tx.update(apiKeys).set({ projectId: null }).where(eq(apiKeys.projectId, id)).run()
        tx.delete(budgets).where(eq(budgets.projectId, id)).run()
        tx.delete(projects).where(eq(projects.id, id)).run()
        writeAudit(tx, audit?.(projectOf(before), undefined))
        return true
      }, immediate)
    },

    async createBudget(budget, audit) {
      return db.transaction((tx) => {
        const row = budgetOf(tx.insert(budgets).values(budget).returning().get())
        touchKeys(tx, scopeOf(row), budget.createdAt)
        writeAudit(tx, audit?.(undefined, row))
        return row
      }, immediate)
    },
    async findBudget(id) {
      const row = db.select().from(budgets).where(eq(budgets.id, id)).get()
      return row && budgetOf(row)
    },
    async listBudgets(accountId) {
      const rows = db.select().from(budgets).where(ofAccount(budgets.accountId, accountId)).all()
      return rows.map(budgetOf).sort(byId)
    },
    async updateBudget(id, changes, at, audit) {
      return db.transaction((tx) => {
        const before = tx.select().from(budgets).where(eq(budgets.id, id)).get()
        if (!before) return undefined
        const defined = Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined))
        const after = budgetOf(
          tx
            .update(budgets)
            .set({ ...defined, updatedAt: at })
            .where(eq(budgets.id, id))
            .returning()
            .get()!,
        )
        touchKeys(tx, scopeOf(after), at)
        writeAudit(tx, audit?.(budgetOf(before), after))
        return after
      }, immediate)
    },
    async deleteBudget(id, at, audit) {
      return db.transaction((tx) => {
        const before = tx.select().from(budgets).where(eq(budgets.id, id)).get()
        if (!before) return false
        touchKeys(tx, scopeOf(before), at)
        tx.delete(budgets).where(eq(budgets.id, id)).run()
        writeAudit(tx, audit?.(budgetOf(before), undefined))
        return true
      }, immediate)
    },

    async ofAccounts(accountIds) {
      if (accountIds.length === 0) return { projects: [], budgets: [] }
      const ids = [...accountIds]
      return {
        projects: db.select().from(projects).where(inArray(projects.accountId, ids)).all().map(projectOf),
        budgets: db.select().from(budgets).where(inArray(budgets.accountId, ids)).all().map(budgetOf),
      }
    },
    async periodFigures(budgetId, start) {
      const row = db
        .select()
        .from(budgetPeriods)
        .where(and(eq(budgetPeriods.budgetId, budgetId), eq(budgetPeriods.periodStart, start)))
        .get()
      return { spent: row?.spent ?? 0, reserved: row?.reserved ?? 0 }
    },
    async latestPeriodStart(budgetId) {
      const row = db
        .select()
        .from(budgetPeriods)
        .where(eq(budgetPeriods.budgetId, budgetId))
        .orderBy(desc(budgetPeriods.periodStart))
        .limit(1)
        .get()
      return row?.periodStart
    },
  }
}
