import { and, desc, eq, inArray, sql } from 'drizzle-orm'
import type { BudgetRepository } from '../../domain/budgets/repository.ts'
import { budgetOf, byId, ofAccount, projectOf, projectRow, scopeOf } from '../budget-rows.ts'
import { changedColumns } from '../list-columns.ts'
import { writeAudit } from './audit.ts'
import { apiKeys, budgetPeriods, budgets, projects } from './schema.ts'
import type { PostgresDatabase } from './store.ts'

type Transaction = Parameters<Parameters<PostgresDatabase['transaction']>[0]>[0]

/** Mark the keys a project or budget applies to as changed, so every key cache reads them again (repository.ts). */
async function touchKeys(tx: Transaction, where: { accountId?: number; projectId?: number; keyId?: string }, at: number): Promise<void> {
  const condition =
    where.keyId !== undefined
      ? eq(apiKeys.id, where.keyId)
      : where.projectId !== undefined
        ? eq(apiKeys.projectId, where.projectId)
        : eq(apiKeys.accountId, where.accountId!)
  await tx
    .update(apiKeys)
    .set({ updatedAt: sql`GREATEST(${apiKeys.updatedAt} + 1, ${at})` })
    .where(condition)
}

/** The PostgreSQL twin of ../sqlite/budgets.ts; rows changed are locked (FOR UPDATE) so "before" is what changed. */
export function createPostgresBudgets(db: PostgresDatabase): BudgetRepository {
  return {
    createProject: (project, audit) =>
      db.transaction(async (tx) => {
        const [inserted] = await tx.insert(projects).values(projectRow(project)).returning()
        const row = projectOf(inserted!)
        await writeAudit(tx, audit?.(undefined, row))
        return row
      }),
    async findProject(id) {
      const [row] = await db.select().from(projects).where(eq(projects.id, id))
      return row && projectOf(row)
    },
    async listProjects(accountId) {
      const rows = await db.select().from(projects).where(ofAccount(projects.accountId, accountId))
      return rows.map(projectOf).sort(byId)
    },
    updateProject: (id, changes, at, audit) =>
      db.transaction(async (tx) => {
        const [before] = await tx.select().from(projects).where(eq(projects.id, id)).for('update')
        if (!before) return undefined
        const [updated] = await tx
          .update(projects)
          .set({ ...changedColumns(changes), updatedAt: at })
          .where(eq(projects.id, id))
          .returning()
        const after = projectOf(updated!)
        await touchKeys(tx, { projectId: id }, at)
        await writeAudit(tx, audit?.(projectOf(before), after))
        return after
      }),
    deleteProject: (id, at, audit) =>
      db.transaction(async (tx) => {
        const [before] = await tx.select().from(projects).where(eq(projects.id, id)).for('update')
        if (!before) return false
        await touchKeys(tx, { projectId: id }, at)
        await tx.update(apiKeys).set({ projectId: null }).where(eq(apiKeys.projectId, id))
        await tx.delete(budgets).where(eq(budgets.projectId, id))
        await tx.delete(projects).where(eq(projects.id, id))
        await writeAudit(tx, audit?.(projectOf(before), undefined))
        return true
      }),

    createBudget: (budget, audit) =>
      db.transaction(async (tx) => {
        const [inserted] = await tx.insert(budgets).values(budget).returning()
        const row = budgetOf(inserted!)
        await touchKeys(tx, scopeOf(row), budget.createdAt)
        await writeAudit(tx, audit?.(undefined, row))
        return row
      }),
    async findBudget(id) {
      const [row] = await db.select().from(budgets).where(eq(budgets.id, id))
      return row && budgetOf(row)
    },
    async listBudgets(accountId) {
      const rows = await db.select().from(budgets).where(ofAccount(budgets.accountId, accountId))
      return rows.map(budgetOf).sort(byId)
    },
    updateBudget: (id, changes, at, audit) =>
      db.transaction(async (tx) => {
        // Its keys first, then the budget: the order a reservation takes them in (ledger.ts), so the two never deadlock.
        const [scope] = await tx.select().from(budgets).where(eq(budgets.id, id))
        if (!scope) return undefined
        await touchKeys(tx, scopeOf(scope), at)
        const [before] = await tx.select().from(budgets).where(eq(budgets.id, id)).for('update')
        if (!before) return undefined
        const defined = Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined))
        const [updated] = await tx
          .update(budgets)
          .set({ ...defined, updatedAt: at })
          .where(eq(budgets.id, id))
          .returning()
        const after = budgetOf(updated!)
        await writeAudit(tx, audit?.(budgetOf(before), after))
        return after
      }),
    deleteBudget: (id, at, audit) =>
      db.transaction(async (tx) => {
        // Keys before the budget, as in updateBudget.
        const [scope] = await tx.select().from(budgets).where(eq(budgets.id, id))
        if (!scope) return false
        await touchKeys(tx, scopeOf(scope), at)
        const [before] = await tx.select().from(budgets).where(eq(budgets.id, id)).for('update')
        if (!before) return false
        await tx.delete(budgets).where(eq(budgets.id, id))
        await writeAudit(tx, audit?.(budgetOf(before), undefined))
        return true
      }),

    async ofAccounts(accountIds) {
      if (accountIds.length === 0) return { projects: [], budgets: [] }
      const ids = [...accountIds]
      const [projectRows, budgetRows] = await Promise.all([
        db.select().from(projects).where(inArray(projects.accountId, ids)),
        db.select().from(budgets).where(inArray(budgets.accountId, ids)),
      ])
      return { projects: projectRows.map(projectOf), budgets: budgetRows.map(budgetOf) }
    },
    async periodFigures(budgetId, start) {
      const [row] = await db
        .select()
        .from(budgetPeriods)
        .where(and(eq(budgetPeriods.budgetId, budgetId), eq(budgetPeriods.periodStart, start)))
      return { spent: row?.spent ?? 0, reserved: row?.reserved ?? 0 }
    },
    async latestPeriodStart(budgetId) {
      const [row] = await db
        .select()
        .from(budgetPeriods)
        .where(eq(budgetPeriods.budgetId, budgetId))
        .orderBy(desc(budgetPeriods.periodStart))
        .limit(1)
      return row?.periodStart
    },
  }
}
