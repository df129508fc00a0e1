import { GatewayError } from '../../core/errors.ts'
import { jsonResponse } from '../../edge/respond.ts'
import type { Services } from '../../edge/services.ts'
import { gatewayErrorOf, type ItemRecord, maxItems, type TaskRecord } from '../../edge/tasks.ts'
import type { Caller } from '../../relay/types.ts'
import { type BatchItemCodec, checkEach, checkItem, CustomIds, itemInvalid, itemRequest } from '../shared/batch-item.ts'
import { defineEndpoint } from '../shared/define-endpoint.ts'
import type { ProtocolRoutes } from '../shared/route-table.ts'
import { isObject, parseJsonBody, storedItemDepth } from '../shared/validate.ts'
import { pageLimit } from '../shared/page-limit.ts'
import { textStream } from '../shared/text-stream.ts'
import { encodeAnthropicError } from './encode-error.ts'
import { anthropicMessages } from '../../operations/chat/protocols/anthropic/protocol.ts'
import { decodePathPart } from '../shared/path-id.ts'
import { keyHolder } from '../../edge/actors.ts'

/** Anthropic batch items: each request's `params`, decoded as a Messages request. */
export const anthropicBatchItems: BatchItemCodec = {
  decode(body, _task, requestId, parsed) {
    const exchange = anthropicMessages.decode(parsed ?? parseJsonBody(body, storedItemDepth), body, itemRequest('/v1/messages'), requestId)
    return { protocol: anthropicMessages.name, operation: anthropicMessages.operation, exchange, inputBound: Buffer.byteLength(body) }
  },
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString())
const customIdPattern = /^[a-zA-Z0-9_-]{1,64}$/

/** A task as Anthropic's MessageBatch (counts other than `processing` stay 0 until it ends, as Anthropic's do). */
function presentMessageBatch(task: TaskRecord, origin: string) {
  const ended = task.finishedAt !== null
  return {
    id: task.id,
    type: 'message_batch',
    processing_status: ended ? 'ended' : task.status === 'cancelling' ? 'canceling' : 'in_progress',
    request_counts: ended
      ? { processing: 0, succeeded: task.succeeded, errored: task.failed, canceled: task.canceled, expired: task.expired }
      : { processing: task.total, succeeded: 0, errored: 0, canceled: 0, expired: 0 },
    created_at: iso(task.createdAt),
    expires_at: iso(task.expiresAt),
    ended_at: iso(task.finishedAt),
    cancel_initiated_at: iso(task.cancelRequestedAt),
    archived_at: null,
    results_url: ended ? `${origin}/v1/messages/batches/${task.id}/results` : null,
  }
}

function notFound(id: string): GatewayError {
  return new GatewayError('not_found', `No message batch found with id '${id}'.`)
}

/** One result line: `{custom_id, result: {type: succeeded|errored|canceled|expired, …}}`. */
export function resultLine(item: ItemRecord): string {
  const head = `{"custom_id":${JSON.stringify(item.customId)},"result":`
  if (item.status === 'succeeded') return `${head}{"type":"succeeded","message":${item.result}}}`
  if (item.status === 'errored')
    return `${head}${JSON.stringify({ type: 'errored', error: encodeAnthropicError(gatewayErrorOf(JSON.parse(item.result!)), item.id) })}}`
  return `${head}{"type":${JSON.stringify(item.status)}}}`
}

/**
 * POST /v1/messages/batches: every request checked (custom_id, params, model) before anything runs. The body is
 * checked as a live one is (`limits.json_depth`, the body cap), so each request is too. Under the key's rpm and
 * concurrency, and the account's quota of batches not yet ended.
 */
async function createBatch(services: Services, caller: Caller, request: Request, text: string): Promise<Response> {
  const body = parseJsonBody(text, services.config.limits.jsonDepth)
  const requests = body.requests
  if (!Array.isArray(requests) || requests.length === 0)
    throw new GatewayError('invalid_request', 'requests: must be a non-empty array.', { param: 'requests' })
  if (requests.length > maxItems)
    throw new GatewayError('invalid_request', `requests: a batch holds at most ${maxItems} requests.`, { param: 'requests' })
  // An account with as many batches running as it may is refused before its requests are checked.
  await services.tasks.admitBatch(caller.accountId)
  const customIds = new CustomIds()
  const target = { endpoint: '/v1/messages', model: null }
  const items = await checkEach(requests, (entry, index) => {
    const where = `requests[${index}]`
    if (!isObject(entry)) throw itemInvalid(where, new Error('expected an object.'))
    const customId = entry.custom_id
    if (typeof customId !== 'string' || !customIdPattern.test(customId))
      throw itemInvalid(`${where}.custom_id`, new Error('must match ^[a-zA-Z0-9_-]{1,64}$.'))
    customIds.add(customId, where)
    if (!isObject(entry.params)) throw itemInvalid(`${where}.params`, new Error('must be an object.'))
    const params = JSON.stringify(entry.params)
    checkItem(services.relay, caller, anthropicBatchItems, target, params, `${where} (custom_id ${customId})`, entry.params)
    return { customId, body: params }
  })
  const task = await services.tasks.create({
    kind: 'anthropic',
    accountId: caller.accountId,
    keyId: caller.id,
    endpoint: '/v1/messages',
    items,
  })
  return jsonResponse(presentMessageBatch(task, new URL(request.url).origin))
}

/** GET /v1/messages/batches?limit=&after_id=&before_id= (newest first). */
async function listBatches(services: Services, caller: Caller, request: Request): Promise<Response> {
  const query = new URL(request.url).searchParams
  const limit = pageLimit(query.get('limit'), 20, 1000)
  const { tasks, hasMore } = await services.tasks.list(caller.accountId, {
    limit,
    after: query.get('after_id') ?? undefined,
    before: query.get('before_id') ?? undefined,
    kind: 'anthropic',
  })
  const origin = new URL(request.url).origin
  const data = tasks.map((task) => presentMessageBatch(task, origin))
  return jsonResponse({ data, has_more: hasMore, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null })
}

/** GET/DELETE /v1/messages/batches/{id}, POST …/{id}/cancel, GET …/{id}/results. */
async function answerBatch(services: Services, caller: Caller, request: Request): Promise<Response> {
  const url = new URL(request.url)
  const [id = '', action] = decodePathPart(url.pathname.slice('/v1/messages/batches/'.length), 'message batch ID').split('/')
  const task = await services.tasks.find(caller.accountId, id)
  if (!task || task.kind !== 'anthropic') throw notFound(id)
  if (request.method === 'POST') {
    if (action !== 'cancel') throw new GatewayError('not_found', 'Unknown path', { code: 'unknown_path' })
    return jsonResponse(
      presentMessageBatch((await services.tasks.cancel(caller.accountId, id, keyHolder(services, caller, request)))!, url.origin),
    )
  }
  if (request.method === 'DELETE') {
    if ((await services.tasks.delete(caller.accountId, id)) === 'running') {
      throw new GatewayError('invalid_request', `Message batch ${id} is still in progress: cancel it, and delete it once it has ended.`)
    }
    return jsonResponse({ id, type: 'message_batch_deleted' })
  }
  if (action === 'results') {
    if (task.finishedAt === null)
      throw new GatewayError(
        'invalid_request',
        `Message batch ${id} has not ended yet; its results are available once processing_status is "ended".`,
      )
    return new Response(textStream(resultLines(services.tasks, id)), { headers: { 'content-type': 'application/x-jsonl' } })
  }
  if (action !== undefined) throw new GatewayError('not_found', 'Unknown path', { code: 'unknown_path' })
  return jsonResponse(presentMessageBatch(task, url.origin))
}

/** The results file, a line per item in input order. */
async function* resultLines(tasks: Services['tasks'], id: string): AsyncGenerator<string> {
  for await (const item of tasks.items(id)) yield resultLine(item) + '\n'
}

const create = defineEndpoint(anthropicMessages, createBatch, { admitted: true })
const list = defineEndpoint(anthropicMessages, listBatches)
const one = defineEndpoint(anthropicMessages, answerBatch)

export const anthropicBatchRoutes: ProtocolRoutes = (services) => ({
  '/v1/messages/batches': { POST: (request) => create(services, request), GET: (request) => list(services, request) },
  '/v1/messages/batches/*': {
    GET: (request) => one(services, request),
    POST: (request) => one(services, request),
    DELETE: (request) => one(services, request),
  },
})
