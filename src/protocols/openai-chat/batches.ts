import { GatewayError } from '../../core/errors.ts'
import { jsonResponse } from '../../edge/respond.ts'
import type { Services } from '../../edge/services.ts'
import type { TaskRecord, TaskStatus } from '../../edge/tasks.ts'
import type { Caller } from '../../relay/types.ts'
import { readOpenAiMetadata } from '../shared/batch-metadata.ts'
import { defineEndpoint } from '../shared/define-endpoint.ts'
import { parseJsonBody } from '../shared/validate.ts'
import { batchEndpoints } from './batch-items.ts'
import { readFileRequests } from './batch-lines.ts'
import { noSuchFile, openAiFront } from './files.ts'
import { pageLimit } from '../shared/page-limit.ts'
import { decodePathPart } from '../shared/path-id.ts'
import { keyHolder } from '../../edge/actors.ts'

const statusNames: Record<TaskStatus, string> = {
  queued: 'validating',
  in_progress: 'in_progress',
  completed: 'completed',
  failed: 'failed',
  cancelling: 'cancelling',
  cancelled: 'cancelled',
  expired: 'expired',
}

const seconds = (ms: number | null) => (ms === null ? null : Math.floor(ms / 1000))

/** A task as OpenAI's Batch object. */
function presentBatch(task: TaskRecord) {
  const ended = task.finishedAt
  return {
    id: task.id,
    object: 'batch',
    endpoint: task.endpoint,
    errors: null,
    input_file_id: task.inputFileId,
    completion_window: '24h',
    status: statusNames[task.status],
    output_file_id: task.outputFileId,
    error_file_id: task.errorFileId,
    created_at: seconds(task.createdAt),
    in_progress_at: seconds(task.startedAt),
    expires_at: seconds(task.expiresAt),
    finalizing_at: ended === null ? null : seconds(ended),
    completed_at: task.status === 'completed' ? seconds(ended) : null,
    failed_at: task.status === 'failed' ? seconds(ended) : null,
    expired_at: task.status === 'expired' ? seconds(ended) : null,
    cancelling_at: seconds(task.cancelRequestedAt),
    cancelled_at: task.status === 'cancelled' ? seconds(ended) : null,
    request_counts: { total: task.total, completed: task.succeeded, failed: task.failed + task.canceled + task.expired },
    metadata: task.metadata,
  }
}

function noSuchBatch(id: string): GatewayError {
  return new GatewayError('not_found', `No batch found with id '${id}'.`, { code: 'batch_not_found', param: 'batch_id' })
}

/**
 * POST /v1/batches. The whole input file is checked before anything runs (read line by line, never whole; see
 * batch-lines.ts): any line at fault is a 400 naming it. Under the key's rpm and concurrency, and the account's quota
 * of batches not yet ended.
 */
async function createBatch(services: Services, caller: Caller, _request: Request, text: string): Promise<Response> {
  const body = parseJsonBody(text, services.config.limits.jsonDepth)
  const inputFileId = body.input_file_id
  if (typeof inputFileId !== 'string')
    throw new GatewayError('invalid_request', "Missing required parameter: 'input_file_id'.", { param: 'input_file_id' })
  const endpoint = body.endpoint
  if (typeof endpoint !== 'string' || !batchEndpoints.includes(endpoint)) {
    throw new GatewayError('invalid_request', `'endpoint' must be one of ${batchEndpoints.join(', ')}.`, { param: 'endpoint' })
  }
  if (body.completion_window !== '24h')
    throw new GatewayError('invalid_request', "'completion_window' must be '24h'.", { param: 'completion_window' })
  const metadata = readOpenAiMetadata(body.metadata)
  const file = await services.tasks.findFile(caller.accountId, inputFileId)
  if (!file) throw noSuchFile(inputFileId)
  if (file.purpose !== 'batch')
    throw new GatewayError('invalid_request', `File ${inputFileId} is not a batch input file.`, { param: 'input_file_id' })
  // An account with as many batches running as it may is refused before its file is read (and again as it is written).
  await services.tasks.admitBatch(caller.accountId)
  const items = await readFileRequests(services, caller, inputFileId, endpoint)
  if (items.length === 0) throw new GatewayError('invalid_request', `File ${inputFileId} holds no requests.`, { param: 'input_file_id' })
  const task = await services.tasks.create({
    kind: 'openai',
    accountId: caller.accountId,
    keyId: caller.id,
    endpoint,
    inputFileId,
    items,
    metadata,
  })
  return jsonResponse(presentBatch(task))
}

/** GET /v1/batches?after=&limit= (newest first). */
async function listBatches(services: Services, caller: Caller, request: Request): Promise<Response> {
  const query = new URL(request.url).searchParams
  const limit = pageLimit(query.get('limit'), 20, 100)
  const { tasks, hasMore } = await services.tasks.list(caller.accountId, { limit, after: query.get('after') ?? undefined, kind: 'openai' })
  const data = tasks.map(presentBatch)
  return jsonResponse({ object: 'list', data, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null, has_more: hasMore })
}

/** GET /v1/batches/{id} and POST /v1/batches/{id}/cancel. */
async function answerBatch(services: Services, caller: Caller, request: Request): Promise<Response> {
  const rest = decodePathPart(new URL(request.url).pathname.slice('/v1/batches/'.length), 'batch ID')
  const cancel = request.method === 'POST'
  if (request.method === 'DELETE' || (cancel && !rest.endsWith('/cancel')))
    throw new GatewayError('not_found', 'Unknown path', { code: 'unknown_path' })
  const id = cancel ? rest.slice(0, -'/cancel'.length) : rest
  const task = await services.tasks.find(caller.accountId, id)
  if (!task || task.kind !== 'openai') throw noSuchBatch(id)
  return jsonResponse(
    presentBatch(cancel ? (await services.tasks.cancel(caller.accountId, id, keyHolder(services, caller, request)))! : task),
  )
}

export const createOpenAiBatch = defineEndpoint(openAiFront, createBatch, { admitted: true })
export const listOpenAiBatches = defineEndpoint(openAiFront, listBatches)
export const answerOpenAiBatch = defineEndpoint(openAiFront, answerBatch)
