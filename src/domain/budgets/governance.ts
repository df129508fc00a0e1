import type { BudgetRecord, KeyRecord, ProjectRecord } from '../records.ts'
import type { KeyRepository } from '../repositories.ts'
import type { BudgetRepository } from './repository.ts'

/**
 * Keys read with their project and the budgets that apply to them (their own, their project's, their account's), so
 * the key cache holds everything a request needs: admitting it asks no query beyond its hold's transaction. A change
 * to a project or budget marks its keys as changed (repository.ts), and the caches read them again through this.
 */
export function withGovernance(keys: KeyRepository, budgets: BudgetRepository): KeyRepository {
  const attach = async (records: KeyRecord[]): Promise<KeyRecord[]> => {
    if (records.length === 0) return records
    const rules = await budgets.ofAccounts([...new Set(records.map((key) => key.accountId))])
    for (const key of records) applyGovernance(key, rules.projects, rules.budgets)
    return records
  }
  const one = async (key: KeyRecord | undefined) => key && (await attach([key]))[0]
  return {
    ...keys,
    findById: async (id) => one(await keys.findById(id)),
    findByHash: async (hash) => one(await keys.findByHash(hash)),
    changedSince: async (since) => attach(await keys.changedSince(since)),
  }
}

/**
 * Set a key's project, applying budgets and their signature from its account's projects and budgets. Not enumerable:
 * they are what the key is read with, not fields of the key (its JSON, its audit rows and comparisons leave them out).
 */
function applyGovernance(key: KeyRecord, projects: readonly ProjectRecord[], budgets: readonly BudgetRecord[]): void {
  const applying = budgets.filter((budget) => budget.accountId === key.accountId && appliesTo(budget, key)).sort((a, b) => a.id - b.id)
  const hidden = (value: unknown) => ({ value, writable: true, configurable: true, enumerable: false })
  Object.defineProperties(key, {
    project: hidden(key.projectId === null ? null : (projects.find((project) => project.id === key.projectId) ?? null)),
    budgets: hidden(applying),
    budgetSignature: hidden(applying.map((budget) => `${budget.id}:${budget.amount}:${budget.period}:${budget.timeZone}`).join(',')),
  })
}

function appliesTo(budget: BudgetRecord, key: KeyRecord): boolean {
  if (budget.scope === 'account') return true
  if (budget.scope === 'project') return key.projectId !== null && budget.projectId === key.projectId
  return budget.keyId === key.id
}
