import { accountNames } from '../../domain/accounts.ts'
import { requestJson } from '../../domain/presenters.ts'
import type { UsageCursor, UsageFilter } from '../../domain/records.ts'
import type { Services } from '../../edge/services.ts'

const columns = [
  'at', 'request_id', 'account_id', 'account', 'key_id', 'key_name', 'key_prefix', 'model', 'provider', 'protocol', 'status', 'outcome', 'error_type',
  'input_tokens', 'cached_input_tokens', 'output_tokens', 'reasoning_tokens', 'cost_usd', 'latency_ms', 'stream', 'estimated',
] as const
const pageRows = 1000

/**
 * One CSV field. Text a spreadsheet would run as a formula (a key named `=HYPERLINK(…)`) gets a leading quote mark;
 * numbers and money are written as they are, money as the exact decimal string.
 */
export function field(value: unknown): string {
  if (value === null || value === undefined) return ''
  if (typeof value !== 'string') return String(value)
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe
}

/** The request log matching a filter as CSV (RFC 4180, header row first), newest first, read a page at a time. */
export function requestCsv(services: Services, filter: UsageFilter, withAccounts: boolean): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder()
  const labels = new Map<string, { name: string | null; prefix: string } | undefined>()
  let names: Map<number, string> | undefined
  let cursor: UsageCursor | undefined
  let started = false
  let done = false
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!started) {
        started = true
        names = withAccounts ? await accountNames(services.store.accounts) : new Map()
        controller.enqueue(encoder.encode(columns.join(',') + '\r\n'))
        return
      }
      if (done) return controller.close()
      const rows = await services.store.usage.listRequests(filter, pageRows, cursor)
      if (rows.length < pageRows) done = true
      const last = rows.at(-1)
      if (last) cursor = { createdAt: last.createdAt, id: last.id }
      let text = ''
      for (const row of rows) {
        if (!labels.has(row.keyId)) {
          const key = await services.store.keys.findById(row.keyId)
          labels.set(row.keyId, key && { name: key.name, prefix: key.prefix })
        }
        const json = requestJson(row, labels.get(row.keyId), names!.get(row.accountId))
        text += columns.map((column) => field(json[column])).join(',') + '\r\n'
      }
      if (text) controller.enqueue(encoder.encode(text))
      if (done) controller.close()
    },
  })
}
