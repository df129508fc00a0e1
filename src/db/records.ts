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
}

export interface UsageRecord {
  requestId: string
  accountId: number
  keyId: string
  model: string
  provider: string
  upstreamModel: string
  protocol: string
  inputTokens: number
  cachedInputTokens: number
  cacheWriteTokens: number
  outputTokens: number
  reasoningTokens: number
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
}

/**
 * One entry of a batched ledger write, applied in order inside one transaction:
 * - `settle`: a finished request — its cost leaves the balance and the lease it was held under, and its usage row
 *   is written (the debit and its usage record always commit together);
 * - `release`: unused money of an idle lease goes back to the account's available balance.
 */
export type LedgerWrite =
  | { kind: 'settle'; leaseId: string; usage: UsageRecord }
  | { kind: 'release'; leaseId: string; accountId: number; amount: number }

export interface UsageFilter {
  accountId?: number
  keyId?: string
  since?: number
  until?: number
}

export interface UsageSummary {
  requests: number
  inputTokens: number
  cachedInputTokens: number
  outputTokens: number
  spent: number
}
