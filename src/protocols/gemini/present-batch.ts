import { gatewayErrorOf, type ItemRecord, type TaskRecord, type TaskService, type TaskStatus } from '../../edge/tasks.ts'
import { jsonResponse } from '../../edge/respond.ts'
import { textStream } from '../shared/text-stream.ts'
import { encodeGeminiError } from './encode-error.ts'

/** A Gemini batch as its clients see it: an Operation, and each item's inlined response. */

const states: Record<TaskStatus, string> = {
  queued: 'BATCH_STATE_PENDING',
  in_progress: 'BATCH_STATE_RUNNING',
  cancelling: 'BATCH_STATE_RUNNING',
  completed: 'BATCH_STATE_SUCCEEDED',
  failed: 'BATCH_STATE_FAILED',
  cancelled: 'BATCH_STATE_CANCELLED',
  expired: 'BATCH_STATE_EXPIRED',
}
const batchType = 'type.googleapis.com/google.ai.generativelanguage.v1main.GenerateContentBatch'
const outputType = 'type.googleapis.com/google.ai.generativelanguage.v1main.GenerateContentBatchOutput'

/** Int64 counts as strings, zeros left out, as Google writes them. */
function stats(task: TaskRecord) {
  const entries: [string, number][] = [
    ['requestCount', task.total],
    ['successfulRequestCount', task.succeeded],
    ['failedRequestCount', task.failed + task.canceled + task.expired],
    ['pendingRequestCount', task.total - task.succeeded - task.failed - task.canceled - task.expired],
  ]
  return Object.fromEntries(entries.filter(([, count]) => count > 0).map(([name, count]) => [name, String(count)]))
}

/** An item's inlined response (or error) with the metadata it was sent with, in input order. */
export function inlined(item: ItemRecord) {
  const metadata = item.customId === 'null' ? undefined : JSON.parse(item.customId)
  if (item.status === 'succeeded') return { response: JSON.parse(item.result!), ...(metadata && { metadata }) }
  const error =
    item.status === 'errored'
      ? encodeGeminiError(gatewayErrorOf(JSON.parse(item.result!))).error
      : {
          code: 499,
          message:
            item.status === 'canceled' ? 'The batch was cancelled before this request ran.' : 'The batch expired before this request ran.',
          status: 'CANCELLED',
        }
  return { error, ...(metadata && { metadata }) }
}

/**
 * A task as the Operation Gemini answers create and get with; `done` once it has ended, and then `output` and
 * `response` (every inlined response: up to 50,000) when one batch is asked for, never in a listing, whose answer
 * stays a page of states and counts however large the batches are.
 */
export function presentOperation(task: TaskRecord) {
  const name = `batches/${task.id}`
  const metadata: Record<string, unknown> = {
    '@type': batchType,
    name,
    model: `models/${task.model}`,
    ...(task.displayName && { displayName: task.displayName }),
    state: states[task.status],
    createTime: new Date(task.createdAt).toISOString(),
    updateTime: new Date(task.finishedAt ?? task.startedAt ?? task.createdAt).toISOString(),
    ...(task.finishedAt !== null && { endTime: new Date(task.finishedAt).toISOString() }),
    batchStats: stats(task),
  }
  if (task.finishedAt === null) return { name, metadata }
  return { name, metadata, done: true, ...(task.status === 'cancelled' && { error: { code: 1, message: 'The batch was cancelled.' } }) }
}

/**
 * One batch's Operation with its responses, as GET answers it: once ended, every inlined response (up to 50,000)
 * twice, in `metadata.output` and `response`, written as the items are read (never built whole, and yielding to
 * the event loop between pages of items).
 */
export function operationResponse(task: TaskRecord, tasks: TaskService): Response {
  const operation = presentOperation(task)
  if (!('done' in operation)) return jsonResponse(operation)
  const { error, ...ended } = operation as typeof operation & { error?: unknown }
  const metadata = JSON.stringify(ended.metadata)
  const list = '{"inlinedResponses":{"inlinedResponses":['
  async function* parts(): AsyncGenerator<string> {
    yield `{"name":${JSON.stringify(ended.name)},"metadata":${metadata.slice(0, -1)},"output":${list}`
    yield* responsesOf(task, tasks)
    yield `]}}},"done":true,"response":{"@type":${JSON.stringify(outputType)},"inlinedResponses":{"inlinedResponses":[`
    yield* responsesOf(task, tasks)
    yield `]}}${error ? `,"error":${JSON.stringify(error)}` : ''}}`
  }
  return new Response(textStream(parts()), { headers: { 'content-type': 'application/json' } })
}

/** The items' inlined responses as JSON array text, some 64 KB at a time. */
async function* responsesOf(task: TaskRecord, tasks: TaskService): AsyncGenerator<string> {
  let text = ''
  let count = 0
  for await (const item of tasks.items(task.id)) {
    text += (count++ ? ',' : '') + JSON.stringify(inlined(item))
    if (text.length >= 65_536) {
      yield text
      text = ''
    }
  }
  if (text) yield text
}
