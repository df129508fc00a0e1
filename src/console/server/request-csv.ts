import { accountNames } from '../../domain/accounts.ts'
import { requestJson } from '../../domain/presenters.ts'
import type { UsageFilter, UsageLogEntry } from '../../domain/records.ts'
import type { Services } from '../../edge/services.ts'
import { pagedCsv } from './csv.ts'

const columns = [
  'at',
  'request_id',
  'account_id',
  'account',
  'key_id',
  'key_name',
  'key_prefix',
  'model',
  'provider',
  'protocol',
  'operation',
  'status',
  'outcome',
  'error_type',
  'input_tokens',
  'cached_input_tokens',
  'output_tokens',
  'reasoning_tokens',
  'units',
  'cost_usd',
  'latency_ms',
  'stream',
  'estimated',
] as const
const pageRows = 1000

/** The request log matching a filter as CSV (RFC 4180, header row first), newest first, read a page at a time. */
export function requestCsv(services: Services, filter: UsageFilter, withAccounts: boolean): ReadableStream<Uint8Array> {
  const labels = new Map<string, { name: string | null; prefix: string } | undefined>()
  let names: Map<number, string> | undefined
  const readPage = (after: UsageLogEntry | undefined) =>
    services.store.usage.listRequests(filter, pageRows, after && { createdAt: after.createdAt, id: after.id })
  return pagedCsv(columns, pageRows, readPage, async (row) => {
    names ??= withAccounts ? await accountNames(services.store.accounts) : new Map()
    if (!labels.has(row.keyId)) {
      const key = await services.store.keys.findById(row.keyId)
      labels.set(row.keyId, key && { name: key.name, prefix: key.prefix })
    }
    const json = requestJson(row, labels.get(row.keyId), names.get(row.accountId))
    return columns.map((column) => json[column])
  })
}
