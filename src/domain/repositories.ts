import type { WebhookRepository } from './alerts/records.ts'
import type {
  AccountRecord,
  AdminTokenRecord,
  KeyRecord,
  LedgerEntry,
  LedgerWrite,
  SessionRecord,
  UsageCursor,
  UsageDay,
  UsageFilter,
  UsageGroup,
  UsageLogEntry,
  UsageSummary,
  UserRecord,
} from './records.ts'
import type { LeaseTerm } from './lease.ts'
import type { TaskRepository } from './tasks/repository.ts'
import type { IdentityRepository } from './single-sign-on/repository.ts'
import type { AuditEntry, AuditNote, AuditRepository } from './audit/records.ts'
import type { BudgetRepository } from './budgets/repository.ts'

/**
 * The storage contract. Every method is async so that SQLite (synchronous underneath) and PostgreSQL
 * (a network round trip) are interchangeable; the domain never sees SQL.
 *
 * A change that takes an `audit` note records its audit row in its own transaction (domain/audit): the repository
 * reads the object as it was and as it is inside that transaction and hands both to the note. A change that fails
 * (or changes nothing) leaves no row.
 */
export interface AccountRepository {
  /** With `opening`, its first credit and ledger entry too: all of it, and the audit row, in one transaction. */
  create(
    name: string,
    createdAt: number,
    options?: { opening?: { amount: number; note: string; actor: string }; audit?: AuditNote<AccountRecord> },
  ): Promise<AccountRecord>
  findByName(name: string): Promise<AccountRecord | undefined>
  findById(id: number): Promise<AccountRecord | undefined>
  list(): Promise<AccountRecord[]>
  /** Adds (or with a negative amount removes) money and writes the ledger entry in the same transaction. */
  credit(
    accountId: number,
    amount: number,
    note: string,
    actor: string,
    at: number,
    audit?: AuditNote<AccountRecord>,
  ): Promise<AccountRecord>
  ledgerEntries(accountId: number): Promise<LedgerEntry[]>
}

export interface KeyRepository {
  insert(key: KeyRecord, audit?: AuditNote<KeyRecord>): Promise<void>
  findById(id: string): Promise<KeyRecord | undefined>
  findByHash(hash: string): Promise<KeyRecord | undefined>
  list(accountId?: number): Promise<KeyRecord[]>
  revoke(id: string, at: number, audit?: AuditNote<KeyRecord>): Promise<boolean>
  /** Change the fields given (undefined leaves one as it is) of a key not revoked; false when it is revoked or missing. */
  update(id: string, changes: KeyChanges, at: number, audit?: AuditNote<KeyRecord>): Promise<boolean>
  /** Give a key not revoked a new secret (its hash and shown prefix); false when it is revoked or missing. */
  rotate(id: string, secret: { hash: string; prefix: string }, at: number, audit?: AuditNote<KeyRecord>): Promise<boolean>
  /** Keys created, revoked or changed at or after `since`: how every instance keeps its key cache fresh. */
  changedSince(since: number): Promise<KeyRecord[]>
}

/** What an update may change of a key: undefined leaves a field as it is, null clears it. */
export interface KeyChanges {
  name?: string | null
  models?: string[] | null
  rpm?: number | null
  tpm?: number | null
  concurrency?: number | null
  budget?: number | null
  expiresAt?: number | null
  /** The project the key belongs to (of its own account), or null for none. */
  projectId?: number | null
  allowedIps?: string[] | null
}

export interface AdminTokenRepository {
  insert(token: AdminTokenRecord, audit?: AuditNote<AdminTokenRecord>): Promise<void>
  findById(id: string): Promise<AdminTokenRecord | undefined>
  findByHash(hash: string): Promise<AdminTokenRecord | undefined>
  /** Oldest first. */
  list(): Promise<AdminTokenRecord[]>
  /** False when the token was already revoked or does not exist. */
  revoke(id: string, at: number, audit?: AuditNote<AdminTokenRecord>): Promise<boolean>
  touch(id: string, at: number): Promise<void>
}

export interface Reservation {
  granted: number
  /**
   * Why nothing was granted: `gone` — this process had been declared gone; it is registered again, and its leases
   * retired; `period` — a budget's period is not the lease's any more (it ended, or the budget changed): a new lease.
   */
  short?: 'balance' | 'budget' | 'gone' | 'period'
  /** The budget periods the lease's hold counts against (`budget:start,…`), when budgets were asked for. */
  periods?: string
  /** When the first of those periods ends (epoch ms): the lease is not carved from after that. */
  validUntil?: number
  /** With `short: 'budget'`: the scheduled budget that fell short (none: the key's lifetime budget) and when its period resets. */
  budgetId?: number
  resetsAt?: number
}

export interface LeaseRequest {
  leaseId: string
  accountId: number
  keyId: string
  need: number
  want: number
  at: number
  budgetKeyId?: string
  /**
   * Scheduled budgets (ids) the lease also reserves against, each in its current period at `at` — or, with
   * `periods`, in exactly those (a lease that grows again): `short: 'period'` when they are not current any more.
   */
  budgetIds?: readonly number[]
  periods?: string
}

export interface WriteOptions {
  batchId?: string
  /** The batch may have been committed before: skip what is already there. */
  replay?: boolean
}

export interface LedgerRepository {
  /**
   * Grow the lease (a hold row) `leaseId` of an account by up to `want`, and at least `need`, out of its available
   * balance (balance − reserved) and, with `budgetKeyId`, also out of that key's unspent budget
   * (budget − spent − reserved); returns what was granted, or 0 and what fell short — with nothing written — when
   * not even `need` fits. Atomic against concurrent reservations from other processes.
   */
  reserve(lease: LeaseRequest): Promise<Reservation>
  /**
   * Apply settlements, refusal rows and releases in order, in one transaction. A hold row gives up only what it
   * still holds: a hold another instance released gives nothing, so `reserved` never drops twice. (SQLite keeps what
   * a hold still holds in the serving process's memory, its row only marking the lease alive: db/sqlite/held-amounts.ts.) With `replay` (a
   * spool's bills, a batch written again after its first write failed or ran late) a bill or refusal whose request
   * id already has a usage row is skipped whole, so writing a committed one again moves no money. `batchId`, given
   * when the batch releases lease money (which no usage row marks), is recorded with it: a batch whose id is recorded
   * is skipped whole.
   */
  write(batch: LedgerWrite[], options?: WriteOptions): Promise<void>
  /**
   * `write` for a database whose commit is synchronous (SQLite): done when it returns, a failure thrown (and rolled
   * back). The writer uses it when nothing else is in flight: no promise, no async frame per commit.
   */
  writeNow?(batch: LedgerWrite[], options?: WriteOptions): void
  /** One round trip: resolves when the database answers. */
  ping(): Promise<void>
  /** How long this process's leases may be trusted without asking the database (none: always). */
  term?: LeaseTerm
  /**
   * This process starts serving: record it as the live owner of the holds it places, and release the holds whose
   * owner is provably gone (a crash leaves them), returning how many. PostgreSQL: an `instances` row kept fresh by a
   * heartbeat until the store closes; released are the holds of instances whose heartbeat is older than the timeout
   * or that left no row, and holds from before instances were recorded that are older than `unownedBefore`. SQLite:
   * every hold — the serve lock (sqlite/serve-lock.ts) proves no other server is alive on the file.
   */
  startServing(unownedBefore: number): Promise<number>
}

export interface UsageRepository {
  /** Summaries count folded days (usage_daily) and live rows alike. */
  summarize(filter: UsageFilter): Promise<UsageSummary>
  /** Live rows only (folded days have no rows left). Newest first, `limit` rows older than `before`: keyset paging stays fast however deep the page. */
  listRequests(filter: UsageFilter, limit: number, before?: UsageCursor): Promise<UsageLogEntry[]>
  /** Totals per UTC day, oldest first; days without requests are absent. */
  dailyTotals(filter: UsageFilter): Promise<UsageDay[]>
  /** Totals per model, key or account, largest spend first. */
  totalsBy(dimension: 'model' | 'keyId' | 'accountId' | 'operation', filter: UsageFilter): Promise<UsageGroup[]>
  /**
   * Fold up to `limit` of the oldest usage rows created before `cutoff` into the daily totals (usage_daily) and
   * delete them, in one transaction; returns how many were folded. Summaries (the three above) read both tables, so
   * they are the same before and after; `listRequests` shows live rows only. PostgreSQL: one instance folds at a
   * time — `busy` when another holds the fold lock, and nothing was done.
   */
  fold(cutoff: number, limit: number): Promise<{ folded: number; busy?: boolean }>
}

export interface UserRepository {
  create(user: Omit<UserRecord, 'id'>, audit?: AuditNote<UserRecord>): Promise<UserRecord>
  findByName(name: string): Promise<UserRecord | undefined>
  findById(id: number): Promise<UserRecord | undefined>
  list(): Promise<UserRecord[]>
  /** Deletes the user and, with it, every session it had. */
  delete(id: number, audit?: AuditNote<UserRecord>): Promise<boolean>
  setPasswordHash(id: number, passwordHash: string, at: number, audit?: AuditNote<UserRecord>): Promise<boolean>
  /** Role, account or name as single sign-on last mapped them (domain/single-sign-on). */
  update(
    id: number,
    changes: Pick<UserRecord, 'name' | 'role' | 'accountId'>,
    at: number,
    audit?: AuditNote<UserRecord>,
  ): Promise<UserRecord | undefined>
}

export interface SessionRepository {
  /** With `audit`, the sign-in's row in the same transaction. */
  create(session: SessionRecord, audit?: AuditEntry): Promise<void>
  find(id: string): Promise<SessionRecord | undefined>
  extend(id: string, lastSeenAt: number, expiresAt: number): Promise<void>
  delete(id: string): Promise<void>
  deleteForUser(userId: number): Promise<number>
  deleteExpired(now: number): Promise<number>
}

export interface Store {
  readonly dialect: 'sqlite' | 'postgres'
  accounts: AccountRepository
  keys: KeyRepository
  ledger: LedgerRepository
  usage: UsageRepository
  users: UserRepository
  sessions: SessionRepository
  tasks: TaskRepository
  adminTokens: AdminTokenRepository
  /** Single sign-on identities and sign-ins in progress (domain/single-sign-on). */
  identities: IdentityRepository
  /** Projects and budgets on a schedule (domain/budgets). */
  budgets: BudgetRepository
  /** Who changed what (domain/audit): read, pruned, and written alone for changes that store nothing else. */
  audit: AuditRepository
  /** Webhooks and their deliveries (domain/alerts). */
  webhooks: WebhookRepository
  /** Create or update the tables; says what it applied and whether the database was new. */
  migrate(): Promise<{ applied: string[]; created: boolean }>
  close(): Promise<void>
}
