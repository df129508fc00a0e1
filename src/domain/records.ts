/**
 * The rows the domain works with, independent of the database behind them.
 * Money fields are integer nano-dollars (see core/money.ts); times are epoch milliseconds.
 */
export interface AccountRecord {
  id: number
  name: string
  balance: number
  /** Sum of the holds of requests still in flight. */
  reserved: number
  createdAt: number
}

export interface LedgerEntry {
  id: number
  accountId: number
  amount: number
  balanceAfter: number
  note: string
  actor: string
  createdAt: number
}

export interface KeyRecord {
  id: string
  accountId: number
  name: string | null
  /** The first characters of the secret, shown in listings so people can tell keys apart. */
  prefix: string
  hash: string
  /** Permitted model ids; null means every configured model. */
  models: string[] | null
  createdAt: number
  updatedAt: number
  revokedAt: number | null
  lastUsedAt: number | null
  rpm: number | null
  tpm: number | null
  concurrency: number | null
  budget: number | null
  expiresAt: number | null
  spent: number
  /** The addresses and CIDR blocks the key may be used from (core/allowed-ips.ts); null means every address. */
  allowedIps: string[] | null
  /** The project the key belongs to, if any. */
  projectId: number | null
  /**
   * Read with the key (domain/budgets/governance.ts), not stored on it: its project and the budgets that apply to it
   * (its own, its project's, its account's), so a request needs no query to know them. Absent on a key as written.
   */
  project?: ProjectRecord | null
  budgets?: readonly BudgetRecord[]
  /** The budgets' ids, amounts and periods in one string: a lease made under other budgets is not carved from. */
  budgetSignature?: string
}

/** A group of an account's keys: a model list a key's list can only narrow, rpm/tpm/concurrency shared by its keys. */
export interface ProjectRecord {
  id: number
  accountId: number
  name: string
  models: string[] | null
  rpm: number | null
  tpm: number | null
  concurrency: number | null
  /** The addresses its keys may be used from, as well as their own `allowedIps` (each list must allow); null for every address. */
  allowedIps: string[] | null
  createdAt: number
  updatedAt: number
}

export type BudgetScope = 'account' | 'project' | 'key'

/**
 * An amount (nano-dollars) per period for an account, a project (`projectId`) or a key (`keyId`). `period` is as
 * written (`day`, `week`, `month`, `5h`, `total`: core/budget-period), calendar periods in `timeZone`.
 */
export interface BudgetRecord {
  id: number
  accountId: number
  scope: BudgetScope
  projectId: number | null
  keyId: string | null
  amount: number
  period: string
  timeZone: string
  createdAt: number
  updatedAt: number
}

export interface UsageRecord {
  requestId: string
  accountId: number
  keyId: string
  model: string
  provider: string
  upstreamModel: string
  protocol: string
  /** The kind of model call billed: `chat`, `embeddings`… */
  operation: string
  inputTokens: number
  cachedInputTokens: number
  cacheWriteTokens: number
  outputTokens: number
  reasoningTokens: number
  /** How much of the operation's own unit the request used (embeddings: inputs embedded; chat: 0). */
  units: number
  cost: number
  /** HTTP status the client saw (or would have seen, for a client that left). */
  status: number
  errorType: string | null
  latencyMs: number
  stream: boolean
  estimated: boolean
  createdAt: number
}

export interface Hold {
  id: string
  accountId: number
  keyId: string
  amount: number
  createdAt: number
  /** Set when the hold also counts against this key's budget. */
  budgetKeyId?: string
  /** The budget periods it counts against (`budget:start,…`), when budgets apply. */
  budgetPeriods?: string
}

/**
 * One entry of a batched ledger write, applied in order inside one transaction:
 * - `settle`: a finished request — its cost leaves the balance and the lease it was held under, and its usage row
 *   is written (the debit and its usage record always commit together);
 * - `release`: unused money of an idle lease goes back to the account's available balance.
 * `budgetKeyId` marks a lease that also counts against that key's budget (its `reserved` shrinks the same way), and
 * `budgetPeriods` the budget periods it counts against (the cost is their `spent` too).
 */
export type LedgerWrite =
  | { kind: 'settle'; leaseId: string; usage: UsageRecord; budgetKeyId?: string; budgetPeriods?: string }
  | { kind: 'release'; leaseId: string; accountId: number; amount: number; budgetKeyId?: string; budgetPeriods?: string }
  /** A request refused before any money was held: its usage row (cost 0) and nothing else. */
  | { kind: 'refusal'; usage: UsageRecord }

export interface UsageFilter {
  accountId?: number
  keyId?: string
  /** Only these keys (a project's keys, as they are now); empty matches nothing. */
  keyIds?: readonly string[]
  model?: string
  /** Inclusive HTTP status range, e.g. 400–499 for client errors. */
  statusMin?: number
  statusMax?: number
  since?: number
  until?: number
}

/** A usage row as the request log shows it; `id` breaks ties between rows of the same millisecond. */
export interface UsageLogEntry extends UsageRecord {
  id: number
}

/** Keyset paging: the next page holds rows strictly older than this (created_at, id) pair. */
export interface UsageCursor {
  createdAt: number
  id: number
}

/**
 * `requests` is every request with a valid key; it splits into `succeeded` (answered), `refused` (turned down before
 * an answer: 4xx but 499) and `failed` (5xx, or the client left mid-answer: 499).
 */
export interface UsageTotals {
  requests: number
  succeeded: number
  refused: number
  failed: number
  inputTokens: number
  outputTokens: number
  spent: number
}

/** One UTC day: `day` is the epoch milliseconds of its midnight. */
export interface UsageDay extends UsageTotals {
  day: number
  /** The first and last request of the day's live rows (absent for a day folded into daily totals). */
  firstAt?: number
  lastAt?: number
}

/** Totals for one value of a dimension (a model id, a key id or an account id as text). */
export interface UsageGroup extends UsageTotals {
  group: string
}

/** The console's roles (domain/roles.ts says what each may do). */
export type UserRole = 'admin' | 'account-admin' | 'viewer'

/** A console login: an operator (`admin`, no account) or an `account-admin` or `viewer` of exactly one account. */
export interface UserRecord {
  id: number
  name: string
  role: UserRole
  accountId: number | null
  passwordHash: string
  createdAt: number
  updatedAt: number
}

/** A signed-in browser. `id` is the SHA-256 of the cookie's token, so a copied table grants nothing. */
export interface SessionRecord {
  id: string
  userId: number
  csrfToken: string
  createdAt: number
  lastSeenAt: number
  expiresAt: number
}

export interface UsageSummary extends UsageTotals {
  cachedInputTokens: number
}

export type AdminScope = 'read' | 'full'

/**
 * A bearer token for the admin API (`tga-…`). Only its SHA-256 is stored; `read` may only look, `full` may also
 * change accounts and keys.
 */
export interface AdminTokenRecord {
  id: string
  name: string
  scope: AdminScope
  /** The first characters of the secret, shown in listings so people can tell tokens apart. */
  prefix: string
  hash: string
  createdAt: number
  lastUsedAt: number | null
  revokedAt: number | null
}
