import { formatUsd } from '../core/money.ts'
import type { Store } from '../domain/repositories.ts'
import { DomainError } from '../domain/errors.ts'
import { requireAccount } from '../domain/accounts.ts'
import { totalsJson } from '../domain/presenters.ts'
import { flagString, type ParsedArgs, UsageError } from './args.ts'
import { projectKeyIds, totalsByProject } from '../domain/budgets/project-usage.ts'
import { requireProject } from './governance.ts'
import { printResult } from './output.ts'

export async function runUsageCommand(store: Store, args: ParsedArgs, json: boolean): Promise<void> {
  const accountName = flagString(args, 'account')
  const keyId = flagString(args, 'key')
  const account = accountName ? await requireAccount(store.accounts, accountName) : undefined
  if (keyId && !(await store.keys.findById(keyId))) throw new DomainError('not_found', `key ${keyId} does not exist`)
  const projectName = flagString(args, 'project')
  if (projectName && !account) throw new UsageError('--project needs --account: a project is named within its account')
  const project = projectName ? await requireProject(store, account!.id, projectName) : undefined
  const by = flagString(args, 'by')
  if (by !== undefined && by !== 'project') throw new UsageError(`--by takes project, got "${by}"`)
  const filter = { accountId: account?.id, keyId, ...(project && { keyIds: await projectKeyIds(store, project) }) }
  const [summary, byOperation] = await Promise.all([store.usage.summarize(filter), store.usage.totalsBy('operation', filter)])
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
    /** The same totals per kind of model call (chat, embeddings), largest spend first. */
    by_operation: byOperation.map((group) => ({ operation: group.group, ...totalsJson(group) })),
    ...(project && { project: project.name }),
    ...(by === 'project' && {
      by_project: (await totalsByProject(store, filter)).map(({ group, project: each }) => ({ project: each.name, ...totalsJson(group) })),
    }),
  }
  printResult(json, result, () =>
    [
      `requests:      ${result.requests} (${result.succeeded} answered, ${result.refused} refused, ${result.failed} failed)`,
      `input tokens:  ${result.input_tokens} (${result.cached_input_tokens} cached)`,
      `output tokens: ${result.output_tokens}`,
      `spent:         $${result.spent_usd}`,
      // Split by kind of model call only once there is more than one (chat and embeddings).
      ...(result.by_operation.length > 1 ? result.by_operation.map(describeOperation) : []),
      ...(result.by_project
        ? [
            'by project:',
            ...result.by_project.map((group) => `  ${`${group.project}:`.padEnd(13)}${group.requests} requests, $${group.spent_usd}`),
          ]
        : []),
    ].join('\n'),
  )
}

function describeOperation(group: { operation: string; requests: number; spent_usd: string }): string {
  return `  ${`${group.operation}:`.padEnd(13)}${group.requests} requests, $${group.spent_usd}`
}
