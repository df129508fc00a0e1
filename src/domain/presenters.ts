import { formatUsd } from '../core/money.ts'
import { keyStatus } from './keys.ts'
import type {
  AccountRecord,
  AdminTokenRecord,
  KeyRecord,
  LedgerEntry,
  UsageDay,
  UsageGroup,
  UsageLogEntry,
  UsageTotals,
  UserRecord,
} from './records.ts'

/**
 * The JSON form of each record, one definition shared by the CLI's `--json` output and the console API, so the
 * two never drift apart. Money leaves as exact decimal strings (formatUsd), never as numbers a client could
 * round; times leave as ISO-8601 strings.
 */
const isoTime = (time: number) => new Date(time).toISOString()
const isoTimeOrNull = (time: number | null) => (time === null ? null : isoTime(time))

export function accountJson(account: AccountRecord) {
  return {
    id: account.id,
    name: account.name,
    balance_usd: formatUsd(account.balance),
    reserved_usd: formatUsd(account.reserved),
    available_usd: formatUsd(account.balance - account.reserved),
    created_at: isoTime(account.createdAt),
  }
}

export function keyJson(key: KeyRecord, accountName?: string) {
  return {
    id: key.id,
    account_id: key.accountId,
    account: accountName,
    name: key.name,
    prefix: key.prefix,
    models: key.models,
    status: keyStatus(key),
    created_at: isoTime(key.createdAt),
    last_used_at: isoTimeOrNull(key.lastUsedAt),
    revoked_at: isoTimeOrNull(key.revokedAt),
    rpm: key.rpm,
    tpm: key.tpm,
    concurrency: key.concurrency,
    budget_usd: key.budget === null ? null : formatUsd(key.budget),
    spent_usd: formatUsd(key.spent),
    expires_at: isoTimeOrNull(key.expiresAt),
    project_id: key.projectId,
    allowed_ips: key.allowedIps,
  }
}

export function userJson(user: UserRecord, accountName: string | undefined) {
  return {
    id: user.id,
    name: user.name,
    role: user.role,
    account_id: user.accountId,
    account: accountName ?? null,
    created_at: isoTime(user.createdAt),
  }
}

export function creditJson(entry: LedgerEntry) {
  return {
    kind: 'credit' as const,
    at: isoTime(entry.createdAt),
    amount_usd: formatUsd(entry.amount),
    balance_after_usd: formatUsd(entry.balanceAfter),
    note: entry.note,
    actor: entry.actor,
  }
}

/** `requests` is the sum of the three outcomes, kept for readers written before the split. */
export function totalsJson(totals: UsageTotals) {
  return {
    requests: totals.requests,
    succeeded: totals.succeeded,
    refused: totals.refused,
    failed: totals.failed,
    input_tokens: totals.inputTokens,
    output_tokens: totals.outputTokens,
    spent_usd: formatUsd(totals.spent),
  }
}

export function dayJson(day: UsageDay) {
  return { day: isoTime(day.day).slice(0, 10), ...totalsJson(day) }
}

export function groupJson(group: UsageGroup, label?: string | null) {
  return { id: group.group, label: label ?? group.group, ...totalsJson(group) }
}

/** What a request log row shows of its key (looked up separately; absent when the key is unknown). */
export interface KeyLabel {
  name: string | null
  prefix: string
}

/** How a request ended, by its status: the split every usage summary counts (db/usage-query.ts uses the same rule). */
export function outcomeOf(status: number): 'succeeded' | 'refused' | 'failed' {
  if (status < 400) return 'succeeded'
  return status < 500 && status !== 499 ? 'refused' : 'failed'
}

export function requestJson(entry: UsageLogEntry, key: KeyLabel | undefined, accountName: string | undefined) {
  return {
    id: entry.id,
    request_id: entry.requestId,
    at: isoTime(entry.createdAt),
    account_id: entry.accountId,
    account: accountName ?? null,
    key_id: entry.keyId,
    key_name: key?.name ?? null,
    key_prefix: key?.prefix ?? null,
    model: entry.model,
    provider: entry.provider,
    protocol: entry.protocol,
    operation: entry.operation,
    status: entry.status,
    outcome: outcomeOf(entry.status),
    error_type: entry.errorType,
    input_tokens: entry.inputTokens,
    cached_input_tokens: entry.cachedInputTokens,
    output_tokens: entry.outputTokens,
    reasoning_tokens: entry.reasoningTokens,
    units: entry.units,
    cost_usd: formatUsd(entry.cost),
    latency_ms: entry.latencyMs,
    stream: entry.stream,
    estimated: entry.estimated,
  }
}

export function adminTokenJson(token: AdminTokenRecord) {
  return {
    id: token.id,
    name: token.name,
    scope: token.scope,
    prefix: token.prefix,
    status: token.revokedAt === null ? ('active' as const) : ('revoked' as const),
    created_at: isoTime(token.createdAt),
    last_used_at: isoTimeOrNull(token.lastUsedAt),
    revoked_at: isoTimeOrNull(token.revokedAt),
  }
}
