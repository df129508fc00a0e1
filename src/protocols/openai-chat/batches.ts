import { GatewayError } from '../../core/errors.ts'
import { jsonResponse } from '../../edge/respond.ts'
import type { Services } from '../../edge/services.ts'
import { maxItems, type TaskRecord, type TaskStatus } from '../../edge/tasks.ts'
import type { Caller } from '../../relay/types.ts'
import { checkItem, CustomIds, itemInvalid } from '../shared/batch-item.ts'
import { defineEndpoint } from '../shared/define-endpoint.ts'
import { isObject, parseJsonBody } from '../shared/validate.ts'
import { batchEndpoints, openAiBatchItems } from './batch-items.ts'
import { noSuchFile, openAiFront } from './files.ts'
import { pageLimit } from '../shared/page-limit.ts'

const statusNames: Record<TaskStatus, string> = {
  queued: 'validating', in_progress: 'in_progress', completed: 'completed', failed: 'failed', cancelling: 'cancelling', cancelled: 'cancelled', expired: 'expired',
}

const seconds = (ms: number | null) => (ms === null ? null : Math.floor(ms / 1000))

/** A task as OpenAI's Batch object. */
export function presentBatch(task: TaskRecord) {
  const ended = task.finishedAt
  return {
    id: task.id, object: 'batch', endpoint: task.endpoint, errors: null, input_file_id: task.inputFileId, completion_window: '24h',
    status: statusNames[task.status], output_file_id: task.outputFileId, error_file_id: task.errorFileId,
    created_at: seconds(task.createdAt), in_progress_at: seconds(task.startedAt), expires_at: seconds(task.expiresAt),
    finalizing_at: ended === null ? null : seconds(ended), completed_at: task.status === 'completed' ? seconds(ended) : null,
    failed_at: task.status === 'failed' ? seconds(ended) : null, expired_at: task.status === 'expired' ? seconds(ended) : null,
    cancelling_at: seconds(task.cancelRequestedAt), cancelled_at: task.status === 'cancelled' ? seconds(ended) : null,
    request_counts: { total: task.total, completed: task.succeeded, failed: task.failed + task.canceled + task.expired },
    metadata: task.metadata,
  }
}

export function noSuchBatch(id: string): GatewayError {
  return new GatewayError('not_found', `No batch found with id '${id}'.`, { code: 'batch_not_found', param: 'batch_id' })
}

/**
 * POST /v1/batches. The whole input file is checked before anything runs (read line by line, never whole): a line
 * that is not JSON, a custom_id used twice, a url other than the batch's endpoint, a body its endpoint's decoder
 * refuses, a model unknown or not allowed for this key, or more than 50,000 lines is a 400 naming the line.
 */
async function createBatch(services: Services, caller: Caller, _request: Request, text: string): Promise<Response> {
  const body = parseJsonBody(text, services.config.limits.jsonDepth)
  const inputFileId = body.input_file_id
  if (typeof inputFileId !== 'string') throw new GatewayError('invalid_request', "Missing required parameter: 'input_file_id'.", { param: 'input_file_id' })
  const endpoint = body.endpoint
  if (typeof endpoint !== 'string' || !batchEndpoints.includes(endpoint)) {
    throw new GatewayError('invalid_request', `'endpoint' must be one of ${batchEndpoints.join(', ')}.`, { param: 'endpoint' })
  }
  if (body.completion_window !== '24h') throw new GatewayError('invalid_request', "'completion_window' must be '24h'.", { param: 'completion_window' })
  if (body.metadata !== undefined && body.metadata !== null && !isObject(body.metadata)) {
    throw new GatewayError('invalid_request', "'metadata' must be an object.", { param: 'metadata' })
  }
  const file = await services.tasks.findFile(caller.accountId, inputFileId)
  if (!file) throw noSuchFile(inputFileId)
  if (file.purpose !== 'batch') throw new GatewayError('invalid_request', `File ${inputFileId} is not a batch input file.`, { param: 'input_file_id' })
  const target = { endpoint, model: null }
  const customIds = new CustomIds()
  const items: { customId: string; body: string }[] = []
  for await (const { number, text: line } of services.tasks.fileLines(inputFileId)) {
    if (!line.trim()) continue
    const where = `line ${number}`
    if (items.length === maxItems) throw new GatewayError('invalid_request', `${where}: a batch holds at most ${maxItems} requests.`, { code: 'too_many_requests', param: where })
    let parsed: unknown
    try {
      parsed = JSON.parse(line)
    } catch {
      throw itemInvalid(where, new Error('not valid JSON.'))
    }
    if (!isObject(parsed)) throw itemInvalid(where, new Error('expected a JSON object.'))
    const customId = parsed.custom_id
    if (typeof customId !== 'string' || !customId) throw itemInvalid(where, new Error("'custom_id' must be a non-empty string."))
    customIds.add(customId, where)
    if (parsed.method !== 'POST') throw itemInvalid(`${where} (custom_id ${customId})`, new Error("'method' must be POST."))
    if (parsed.url !== endpoint) throw itemInvalid(`${where} (custom_id ${customId})`, new Error(`'url' is ${JSON.stringify(parsed.url)}, but this batch's endpoint is ${endpoint}.`))
    if (!isObject(parsed.body)) throw itemInvalid(`${where} (custom_id ${customId})`, new Error("'body' must be an object."))
    const itemBody = JSON.stringify(parsed.body)
    checkItem(services.relay, caller, openAiBatchItems, target, itemBody, `${where} (custom_id ${customId})`)
    items.push({ customId, body: itemBody })
  }
  if (items.length === 0) throw new GatewayError('invalid_request', `File ${inputFileId} holds no requests.`, { param: 'input_file_id' })
  const task = await services.tasks.create({
    kind: 'openai', accountId: caller.accountId, keyId: caller.id, endpoint, inputFileId, items,
    metadata: (body.metadata as Record<string, unknown> | undefined) ?? null,
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
  const rest = decodeURIComponent(new URL(request.url).pathname.slice('/v1/batches/'.length))
  const cancel = request.method === 'POST'
  if (request.method === 'DELETE' || (cancel && !rest.endsWith('/cancel'))) throw new GatewayError('not_found', 'Unknown path', { code: 'unknown_path' })
  const id = cancel ? rest.slice(0, -'/cancel'.length) : rest
  const task = await services.tasks.find(caller.accountId, id)
  if (!task || task.kind !== 'openai') throw noSuchBatch(id)
  return jsonResponse(presentBatch(cancel ? (await services.tasks.cancel(caller.accountId, id))! : task))
}

export const createOpenAiBatch = defineEndpoint(openAiFront, createBatch)
export const listOpenAiBatches = defineEndpoint(openAiFront, listBatches)
export const answerOpenAiBatch = defineEndpoint(openAiFront, answerBatch)
