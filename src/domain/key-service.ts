import type { Logger } from '../core/logger.ts'
import { silentLogger } from '../core/logger.ts'
import { reportFailure } from '../core/report-failure.ts'
import type { Actor } from './actor.ts'
import { auditChange } from './audit/note.ts'
import { keyObject } from './audit/objects.ts'
import { checkKeyChanges, KeyInputError } from './key-rules.ts'
import {
  changeKey,
  type CreatedKey,
  createKey,
  type NewKeyInput,
  replaceSecret,
  requireKey,
  requireLiveKey,
  type RevokedKey,
} from './keys.ts'
import type { KeyRecord, ProjectRecord } from './records.ts'
import type { KeyChanges, KeyRepository } from './repositories.ts'

/** One change to one key, as its listeners hear of it (its audit row was written with it). */
export interface KeyChange {
  action: 'create' | 'edit' | 'rotate' | 'revoke'
  actor: Actor
  at: number
  /** The key as it was; null for a new one. */
  before: KeyRecord | null
  /** The key as stored now. */
  after: KeyRecord
}

/**
 * Told of each change once it is stored, in order, before the caller gets its answer: this instance's key cache,
 * then the other instances (Redis); the CLI's announcer. A listener's failure is logged and never undoes the change
 * (the instances' polling finds it within a second).
 */
export type KeyChangeListener = (change: KeyChange) => void | Promise<unknown>

export interface KeyServiceOptions {
  repository: KeyRepository
  /** The model ids a key may name, read at each change: a config reload's models count at once. */
  configuredModels: () => readonly string[]
  listeners?: readonly KeyChangeListener[]
  logger?: Logger
  clock?: () => number
  /** A project by id, so a key is put only in a project of its own account, its models within the project's. */
  findProject?: (id: number) => Promise<ProjectRecord | undefined>
}

/**
 * The one owner of key changes — create, edit (its limits, models, budget, expiry, name), rotate, revoke — for the
 * console, the admin API and the CLI alike. Each change checks its fields once (key-rules.ts), is stored, then told
 * to every listener; the callers only turn their own input into values and present the result.
 *
 * Each change is read-before, write, read-after, with the `actor` that asked; the write records its audit row
 * (`key.create`, `key.edit`, `key.rotate`, `key.revoke`: who, from where, when, the fields before and after, a new
 * secret only as "rotated") in its own transaction (domain/audit). A key's project (issue 27) is one more field
 * checked in `checkKeyChanges` against its project's rules. Who may change which key (an account's scope, a role) is
 * decided by the caller before it asks.
 */
export class KeyService {
  private readonly repository: KeyRepository
  private readonly listeners: readonly KeyChangeListener[]
  private readonly logger: Logger
  private readonly clock: () => number

  constructor(private readonly options: KeyServiceOptions) {
    this.repository = options.repository
    this.listeners = options.listeners ?? []
    this.logger = options.logger ?? silentLogger
    this.clock = options.clock ?? Date.now
  }

  /** A new key; the answer holds its secret, the only time it exists outside the caller's hands. */
  async create(input: NewKeyInput, actor: Actor): Promise<CreatedKey> {
    const at = this.clock()
    const fields = this.check(input, at)
    await this.checkProject(fields.projectId ?? null, input.accountId, fields.models ?? null)
    const created = await createKey(
      this.repository,
      { ...fields, accountId: input.accountId },
      at,
      auditChange(actor, 'key.create', keyObject, { at }),
    )
    // As stored and read back: read with its project and budgets, so the key caches never hold it without them.
    created.record = (await this.repository.findById(created.record.id)) ?? created.record
    await this.announce({ action: 'create', actor, at, before: null, after: created.record })
    return created
  }

  /** Change the fields given (undefined: as it is; null: cleared). A revoked key cannot change (a conflict). */
  async edit(id: string, changes: KeyChanges, actor: Actor): Promise<KeyRecord> {
    const at = this.clock()
    const fields = this.check(changes, at)
    if (Object.keys(fields).length === 0) throw new KeyInputError(undefined, 'nothing to change')
    const before = await requireLiveKey(this.repository, id)
    if (fields.projectId !== undefined || fields.models !== undefined) {
      await this.checkProject(
        fields.projectId === undefined ? before.projectId : fields.projectId,
        before.accountId,
        fields.models === undefined ? before.models : fields.models,
      )
    }
    const after = await changeKey(this.repository, before, fields, at, auditChange(actor, 'key.edit', keyObject, { at }))
    await this.announce({ action: 'edit', actor, at, before, after })
    return after
  }

  /** A new secret for the same key; the old one is refused from this answer on. A revoked key cannot (a conflict). */
  async rotate(id: string, actor: Actor): Promise<CreatedKey> {
    const at = this.clock()
    const before = await requireLiveKey(this.repository, id)
    const rotated = await replaceSecret(this.repository, before, at, auditChange(actor, 'key.rotate', keyObject, { at, rotated: 'secret' }))
    await this.announce({ action: 'rotate', actor, at, before, after: rotated.record })
    return rotated
  }

  /** Refuse the key from now on. Revoking a revoked key changes nothing, and nobody is told of it. */
  async revoke(id: string, actor: Actor): Promise<RevokedKey> {
    const at = this.clock()
    const before = await requireKey(this.repository, id)
    if (before.revokedAt !== null) return { key: before, changed: false }
    // false: revoked by someone else since it was read (and then no row: this call changed nothing)
    const changed = await this.repository.revoke(id, at, auditChange(actor, 'key.revoke', keyObject, { at }))
    const after = (await this.repository.findById(id))!
    if (changed) await this.announce({ action: 'revoke', actor, at, before, after })
    return { key: after, changed }
  }

  private check(changes: KeyChanges, now: number): KeyChanges {
    return checkKeyChanges(changes, { configuredModels: this.options.configuredModels(), now })
  }

  /** A key's project is one of its account's, and its model list only narrows the project's (none: the project's list). */
  private async checkProject(projectId: number | null, accountId: number, models: string[] | null): Promise<void> {
    if (projectId === null) return
    const project = await this.options.findProject?.(projectId)
    if (!project || project.accountId !== accountId) throw new KeyInputError('projectId', "must name a project of the key's account")
    const outside = project.models && (models ?? []).filter((model) => !project.models!.includes(model))
    if (outside?.length)
      throw new KeyInputError('models', `must be within its project's models (${project.models!.join(', ')}); not: ${outside.join(', ')}`)
  }

  private async announce(change: KeyChange): Promise<void> {
    for (const listener of this.listeners) {
      try {
        await listener(change)
      } catch (error) {
        reportFailure(this.logger, error, { route: `key ${change.action} announcement` })
      }
    }
  }
}
