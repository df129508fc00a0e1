import { normalizeAllowedIps } from '../../core/allowed-ips.ts'
import { formatBudgetPeriod, parseBudgetPeriod, parseTimeZone } from '../../core/budget-period/index.ts'
import type { Actor } from '../actor.ts'
import { auditChange } from '../audit/note.ts'
import { budgetObject, projectObject } from '../audit/objects.ts'
import { DomainError } from '../errors.ts'
import { maxKeyLimit, maxKeyNameLength } from '../key-rules.ts'
import type { BudgetRecord, BudgetScope, KeyRecord, ProjectRecord } from '../records.ts'
import { budgetFigures, keyViewJson } from './key-view.ts'
import type { KeyRepository } from '../repositories.ts'
import type { BudgetChanges, BudgetRepository, ProjectChanges } from './repository.ts'

export interface NewProject extends ProjectChanges {
  accountId: number
  name: string
}

export interface NewBudget {
  accountId: number
  scope: BudgetScope
  projectId?: number | null
  keyId?: string | null
  amount: number
  period: string
  timeZone?: string
}

export interface BudgetServiceOptions {
  repository: BudgetRepository
  keys: KeyRepository
  /** The model ids a project may name, read at each change (a reload's models count at once). */
  configuredModels: () => readonly string[]
  clock?: () => number
  /** After each change: this instance's key cache reads the keys it marked (others find them at their next poll). */
  changed?: () => Promise<void>
}

const invalid = (message: string) => new DomainError('invalid', message)

/**
 * The one owner of project and budget changes, for the console, the admin API and the CLI: each change is checked
 * here, stored with its audit row (`project.create|edit|delete`, `budget.create|edit|delete`) in its transaction, and
 * reaches every key cache through the keys it marks as changed (repository.ts). Who may change which account's is
 * decided by the caller.
 */
export class BudgetService {
  private readonly repository: BudgetRepository
  private readonly clock: () => number

  constructor(private readonly options: BudgetServiceOptions) {
    this.repository = options.repository
    this.clock = options.clock ?? Date.now
  }

  async createProject(input: NewProject, actor: Actor): Promise<ProjectRecord> {
    const at = this.clock()
    const fields = this.checkProject(input)
    const project = {
      accountId: input.accountId,
      name: fields.name!,
      models: fields.models ?? null,
      rpm: fields.rpm ?? null,
      tpm: fields.tpm ?? null,
      concurrency: fields.concurrency ?? null,
      allowedIps: fields.allowedIps ?? null,
      createdAt: at,
      updatedAt: at,
    }
    if ((await this.repository.listProjects(input.accountId)).some((other) => other.name === project.name)) {
      throw new DomainError('conflict', `project "${project.name}" exists in this account already`)
    }
    return this.repository.createProject(project, auditChange(actor, 'project.create', projectObject, { at }))
    // A new project applies to no key yet: no key cache needs telling.
  }

  async editProject(id: number, changes: ProjectChanges, actor: Actor): Promise<ProjectRecord> {
    const fields = this.checkProject(changes)
    if (Object.keys(fields).length === 0) throw invalid('nothing to change')
    return this.change('project', id, (at) =>
      this.repository.updateProject(id, fields, at, auditChange(actor, 'project.edit', projectObject, { at })),
    )
  }

  async deleteProject(id: number, actor: Actor): Promise<void> {
    await this.change('project', id, (at) =>
      this.repository.deleteProject(id, at, auditChange(actor, 'project.delete', projectObject, { at })),
    )
  }

  /** One edit or deletion of a project or budget, with its audit row; a missing one is a 404, a done one tells the key caches. */
  private async change<Result>(what: 'project' | 'budget', id: number, write: (at: number) => Promise<Result | undefined | false>) {
    const result = await write(this.clock())
    if (!result) throw new DomainError('not_found', `${what} ${id} does not exist`)
    await this.options.changed?.()
    return result
  }

  async requireProject(id: number): Promise<ProjectRecord> {
    const project = await this.repository.findProject(id)
    if (!project) throw new DomainError('not_found', `project ${id} does not exist`)
    return project
  }

  async requireBudget(id: number): Promise<BudgetRecord> {
    const budget = await this.repository.findBudget(id)
    if (!budget) throw new DomainError('not_found', `budget ${id} does not exist`)
    return budget
  }

  async createBudget(input: NewBudget, actor: Actor): Promise<BudgetRecord> {
    const at = this.clock()
    const fields = this.checkBudget(input)
    const budget = {
      accountId: input.accountId,
      scope: input.scope,
      projectId: null as number | null,
      keyId: null as string | null,
      amount: fields.amount!,
      period: fields.period!,
      timeZone: fields.timeZone ?? 'UTC',
      createdAt: at,
      updatedAt: at,
    }
    if (input.scope === 'project') {
      const project = input.projectId == null ? undefined : await this.repository.findProject(input.projectId)
      if (!project || project.accountId !== input.accountId) throw invalid('a project budget names a project of its account')
      budget.projectId = project.id
    } else if (input.scope === 'key') {
      const key = input.keyId == null ? undefined : await this.options.keys.findById(input.keyId)
      if (!key || key.accountId !== input.accountId) throw invalid('a key budget names a key of its account')
      budget.keyId = key.id
    } else if (input.scope !== 'account') throw invalid(`scope must be account, project or key, got "${String(input.scope)}"`)
    const created = await this.repository.createBudget(budget, auditChange(actor, 'budget.create', budgetObject, { at }))
    await this.options.changed?.()
    return created
  }

  async editBudget(id: number, changes: BudgetChanges, actor: Actor): Promise<BudgetRecord> {
    const fields = this.checkBudget(changes)
    if (Object.keys(fields).length === 0) throw invalid('nothing to change')
    return this.change('budget', id, (at) =>
      this.repository.updateBudget(id, fields, at, auditChange(actor, 'budget.edit', budgetObject, { at })),
    )
  }

  async deleteBudget(id: number, actor: Actor): Promise<void> {
    await this.change('budget', id, (at) => this.repository.deleteBudget(id, at, auditChange(actor, 'budget.delete', budgetObject, { at })))
  }

  /** GET /v1/key's answer for a key (`models`: the ids it may call). */
  async describeKey(key: KeyRecord, models: readonly string[], now = this.clock()) {
    return keyViewJson(key, await budgetFigures(key, this.repository, now), models)
  }

  /** A project's fields checked: a name of 1–100 characters, configured models (null: every model), limits from 1, address rules as a key's. */
  private checkProject(changes: ProjectChanges): ProjectChanges {
    const checked: ProjectChanges = {}
    if (changes.name !== undefined) {
      const name = changes.name.trim()
      if (!name || name.length > maxKeyNameLength) throw invalid(`name must be 1 to ${maxKeyNameLength} characters`)
      checked.name = name
    }
    if (changes.models !== undefined) {
      if (changes.models !== null) {
        const configured = this.options.configuredModels()
        const unknown = changes.models.filter((model) => !configured.includes(model))
        if (changes.models.length === 0) throw invalid('models must name at least one model (or none at all, for every model)')
        if (unknown.length) throw invalid(`models names unknown model(s) ${unknown.join(', ')}; configured: ${configured.join(', ')}`)
      }
      checked.models = changes.models && [...new Set(changes.models)]
    }
    for (const field of ['rpm', 'tpm', 'concurrency'] as const) {
      const value = changes[field]
      if (value === undefined) continue
      if (value !== null && (!Number.isInteger(value) || value < 1 || value > maxKeyLimit))
        throw invalid(`${field} must be a whole number from 1 to ${maxKeyLimit}`)
      checked[field] = value
    }
    if (changes.allowedIps !== undefined) {
      try {
        checked.allowedIps = changes.allowedIps && normalizeAllowedIps(changes.allowedIps)
      } catch (error) {
        throw invalid(`allowed_ips ${(error as Error).message}`)
      }
    }
    return checked
  }

  /** A budget's fields checked: an amount above 0, a period as written canonically (`120m` → `2h`), a known zone. */
  private checkBudget(changes: BudgetChanges): BudgetChanges {
    const checked: BudgetChanges = {}
    if (changes.amount !== undefined) {
      if (!Number.isSafeInteger(changes.amount) || changes.amount <= 0) throw invalid('amount must be more than 0')
      checked.amount = changes.amount
    }
    try {
      if (changes.period !== undefined) checked.period = formatBudgetPeriod(parseBudgetPeriod(changes.period))
      if (changes.timeZone !== undefined) checked.timeZone = parseTimeZone(changes.timeZone)
    } catch (error) {
      throw invalid((error as Error).message)
    }
    return checked
  }
}
