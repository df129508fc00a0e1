import { formatUsd } from '../core/money.ts'
import type { Store } from '../domain/repositories.ts'
import { DomainError } from '../domain/errors.ts'
import { requireAccount } from '../domain/accounts.ts'
import { flagString, type ParsedArgs } from './args.ts'
import { printResult } from './output.ts'

export async function runUsageCommand(store: Store, args: ParsedArgs, json: boolean): Promise<void> {
  const accountName = flagString(args, 'account')
  const keyId = flagString(args, 'key')
  const account = accountName ? await requireAccount(store.accounts, accountName) : undefined
  if (keyId && !(await store.keys.findById(keyId))) throw new DomainError('not_found', `key ${keyId} does not exist`)
  const summary = await store.usage.summarize({ accountId: account?.id, keyId })
  const result = {
    account: accountName ?? null,
    key: keyId ?? null,
    requests: summary.requests,
    succeeded: summary.succeeded,
    refused: summary.refused,
    failed: summary.failed,
    input_tokens: summary.inputTokens,
    cached_input_tokens: summary.cachedInputTokens,
    output_tokens: summary.outputTokens,
    spent_usd: formatUsd(summary.spent),
  }
  printResult(json, result, () => [
    `requests:      ${result.requests} (${result.succeeded} answered, ${result.refused} refused, ${result.failed} failed)`,
    `input tokens:  ${result.input_tokens} (${result.cached_input_tokens} cached)`,
    `output tokens: ${result.output_tokens}`,
    `spent:         $${result.spent_usd}`,
  ].join('\n'))
}
