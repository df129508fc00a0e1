import type {
  AccountRecord, KeyRecord, LedgerEntry, LedgerWrite, UsageFilter, UsageSummary,
} from './records.ts'

/**
 * The storage contract. Every method is async so that SQLite (synchronous underneath) and PostgreSQL
 * (a network round trip) are interchangeable; the domain never sees SQL.
 */
export interface AccountRepository {
  create(name: string, createdAt: number): Promise<AccountRecord>
  findByName(name: string): Promise<AccountRecord | undefined>
  findById(id: number): Promise<AccountRecord | undefined>
  list(): Promise<AccountRecord[]>
  /** Adds (or with a negative amount removes) money and writes the ledger entry in the same transaction. */
  credit(accountId: number, amount: number, note: string, actor: string, at: number): Promise<AccountRecord>
  ledgerEntries(accountId: number): Promise<LedgerEntry[]>
}

export interface KeyRepository {
  insert(key: KeyRecord): Promise<void>
  findById(id: string): Promise<KeyRecord | undefined>
  findByHash(hash: string): Promise<KeyRecord | undefined>
  list(accountId?: number): Promise<KeyRecord[]>
  revoke(id: string, at: number): Promise<boolean>
  /** Keys created, revoked or changed at or after `since`: how every instance keeps its key cache fresh. */
  changedSince(since: number): Promise<KeyRecord[]>
}

export interface LedgerRepository {
  /**
   * Grow the lease (a hold row) `leaseId` of an account by up to `want`, and at least `need`, out of its available
   * balance (balance − reserved); returns what was granted, or 0 — with nothing written — when not even `need` fits.
   * Atomic against concurrent reservations from other processes.
   */
  reserve(lease: { leaseId: string; accountId: number; keyId: string; need: number; want: number; at: number }): Promise<number>
  /** Apply settlements and releases in order, in one transaction. */
  write(batch: LedgerWrite[]): Promise<void>
  /** Release holds older than `before` (left by a crash) and return how many there were. */
  releaseStaleHolds(before: number): Promise<number>
}

export interface UsageRepository {
  summarize(filter: UsageFilter): Promise<UsageSummary>
}

export interface Store {
  readonly dialect: 'sqlite' | 'postgres'
  accounts: AccountRepository
  keys: KeyRepository
  ledger: LedgerRepository
  usage: UsageRepository
  migrate(): Promise<void>
  close(): Promise<void>
}
