import { formatUsd } from '../../core/money.ts'
import type { LedgerEntry, UsageDay, UsageGroup, UsageLogEntry, UsageTotals, UserRecord } from '../../domain/records.ts'

/** Money leaves the server as exact decimal strings (formatUsd), never as numbers the browser could round. */
export function totalsJson(totals: UsageTotals) {
  return { requests: totals.requests, input_tokens: totals.inputTokens, output_tokens: totals.outputTokens, spent_usd: formatUsd(totals.spent) }
}

export function dayJson(day: UsageDay) {
  return { day: new Date(day.day).toISOString().slice(0, 10), ...totalsJson(day) }
}

export function groupJson(group: UsageGroup, label?: string | null) {
  return { id: group.group, label: label ?? group.group, ...totalsJson(group) }
}

export interface KeyLabel {
  name: string | null
  prefix: string
}

export function requestJson(entry: UsageLogEntry, key: KeyLabel | undefined, accountName: string | undefined) {
  return {
    id: entry.id,
    request_id: entry.requestId,
    at: new Date(entry.createdAt).toISOString(),
    account_id: entry.accountId,
    account: accountName ?? null,
    key_id: entry.keyId,
    key_name: key?.name ?? null,
    key_prefix: key?.prefix ?? null,
    model: entry.model,
    provider: entry.provider,
    protocol: entry.protocol,
    status: entry.status,
    error_type: entry.errorType,
    input_tokens: entry.inputTokens,
    cached_input_tokens: entry.cachedInputTokens,
    output_tokens: entry.outputTokens,
    reasoning_tokens: entry.reasoningTokens,
    cost_usd: formatUsd(entry.cost),
    latency_ms: entry.latencyMs,
    stream: entry.stream,
    estimated: entry.estimated,
  }
}

export function userJson(user: UserRecord, accountName: string | undefined) {
  return {
    id: user.id,
    name: user.name,
    role: user.role,
    account_id: user.accountId,
    account: accountName ?? null,
    created_at: new Date(user.createdAt).toISOString(),
  }
}

export function creditJson(entry: LedgerEntry) {
  return {
    kind: 'credit' as const,
    at: new Date(entry.createdAt).toISOString(),
    amount_usd: formatUsd(entry.amount),
    balance_after_usd: formatUsd(entry.balanceAfter),
    note: entry.note,
    actor: entry.actor,
  }
}
