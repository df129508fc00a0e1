import { GatewayError } from '../../core/errors.ts'
import { jsonResponse } from '../../edge/respond.ts'
import type { Services } from '../../edge/services.ts'
import { maxItems } from '../../edge/tasks.ts'
import type { Caller } from '../../relay/types.ts'
import { type BatchItemCodec, checkEach, checkItem, itemInvalid, itemRequest } from '../shared/batch-item.ts'
import { boundedJson, boundedName } from '../shared/batch-metadata.ts'
import { defineEndpoint } from '../shared/define-endpoint.ts'
import { pageLimit } from '../shared/page-limit.ts'
import { isObject, parseJsonBody, storedItemDepth } from '../shared/validate.ts'
import { operationResponse, presentOperation } from './present-batch.ts'
import { modelPathOf, splitModelPath } from './model-path.ts'
import { geminiGenerate } from '../../operations/chat/protocols/gemini/protocol.ts'
import { decodePathPart } from '../shared/path-id.ts'
import { keyHolder } from '../../edge/actors.ts'

/** Gemini batch items: each inlined `request`, decoded as generateContent for the batch's model. */
export const geminiBatchItems: BatchItemCodec = {
  decode(body, task, requestId, parsed) {
    const exchange = geminiGenerate.decode(
      parsed ?? parseJsonBody(body, storedItemDepth),
      body,
      itemRequest(`/v1beta/models/${encodeURIComponent(task.model ?? '')}:generateContent`),
      requestId,
    )
    return { protocol: geminiGenerate.name, operation: geminiGenerate.operation, exchange, inputBound: Buffer.byteLength(body) }
  },
}

function notFound(id: string): GatewayError {
  return new GatewayError('not_found', `Batch batches/${id} not found.`)
}

/** POST /{version}/models/{model}:batchGenerateContent with inlined requests: each checked before anything runs. */
async function createBatch(services: Services, caller: Caller, request: Request, text: string): Promise<Response> {
  const { model } = splitModelPath(modelPathOf(new URL(request.url)))
  const body = parseJsonBody(text, services.config.limits.jsonDepth)
  const batch = isObject(body.batch) ? body.batch : undefined
  if (!batch) throw new GatewayError('invalid_request', "Missing required field 'batch'.", { param: 'batch' })
  const input = batch.inputConfig ?? batch.input_config
  if (!isObject(input))
    throw new GatewayError('invalid_request', "Missing required field 'batch.inputConfig'.", { param: 'batch.inputConfig' })
  if (input.fileName !== undefined || input.file_name !== undefined) {
    throw new GatewayError('invalid_request', 'This gateway takes batch requests inline (inputConfig.requests), not from a file.', {
      param: 'batch.inputConfig.fileName',
    })
  }
  const list = isObject(input.requests) ? input.requests.requests : undefined
  if (!Array.isArray(list) || list.length === 0)
    throw new GatewayError('invalid_request', "'batch.inputConfig.requests.requests' must be a non-empty list.", {
      param: 'batch.inputConfig.requests.requests',
    })
  if (list.length > maxItems)
    throw new GatewayError('invalid_request', `A batch holds at most ${maxItems} requests.`, {
      param: 'batch.inputConfig.requests.requests',
    })
  const displayName = boundedName(batch.displayName ?? batch.display_name, 'batch.displayName')
  // An account with as many batches running as it may is refused before its requests are checked.
  await services.tasks.admitBatch(caller.accountId)
  const target = { endpoint: 'generateContent', model }
  const items = await checkEach(list, (entry, index) => {
    const where = `batch.inputConfig.requests.requests[${index}]`
    if (!isObject(entry) || !isObject(entry.request)) throw itemInvalid(where, new Error("'request' must be an object."))
    // Its metadata is echoed with its answer in every view of the batch: bounded.
    const customId = boundedJson(entry.metadata, `${where}.metadata`)
    const itemBody = JSON.stringify(entry.request)
    checkItem(services.relay, caller, geminiBatchItems, target, itemBody, where, entry.request)
    return { customId, body: itemBody }
  })
  const task = await services.tasks.create({
    kind: 'gemini',
    accountId: caller.accountId,
    keyId: caller.id,
    endpoint: 'generateContent',
    model,
    items,
    displayName,
  })
  return jsonResponse(presentOperation(task))
}

/** GET /{version}/batches?pageSize=&pageToken= (newest first): states and counts; GET one batch for its responses. */
async function listBatches(services: Services, caller: Caller, request: Request): Promise<Response> {
  const query = new URL(request.url).searchParams
  const limit = pageLimit(query.get('pageSize'), 50, 1000, 'pageSize')
  const { tasks, hasMore } = await services.tasks.list(caller.accountId, {
    limit,
    after: query.get('pageToken') ?? undefined,
    kind: 'gemini',
  })
  const operations = tasks.map(presentOperation)
  return jsonResponse({ operations, ...(hasMore && { nextPageToken: tasks.at(-1)!.id }) })
}

/** GET /{version}/batches/{id}, POST …/{id}:cancel, DELETE …/{id}. */
async function answerBatch(services: Services, caller: Caller, request: Request): Promise<Response> {
  const path = new URL(request.url).pathname
  let id = decodePathPart(path.slice(path.indexOf('/batches/') + '/batches/'.length), 'batch name')
  const cancel = request.method === 'POST'
  if (cancel) {
    if (!id.endsWith(':cancel')) throw new GatewayError('not_found', 'Unknown path', { code: 'unknown_path' })
    id = id.slice(0, -':cancel'.length)
  }
  const task = await services.tasks.find(caller.accountId, id)
  if (!task || task.kind !== 'gemini') throw notFound(id)
  if (cancel) {
    await services.tasks.cancel(caller.accountId, id, keyHolder(services, caller, request))
    return jsonResponse({})
  }
  if (request.method === 'DELETE') {
    if ((await services.tasks.delete(caller.accountId, id)) === 'running') {
      throw new GatewayError('invalid_request', `Batch batches/${id} is still running: cancel it, and delete it once it has ended.`)
    }
    return jsonResponse({})
  }
  return operationResponse(task, services.tasks)
}

export const createGeminiBatch = defineEndpoint(geminiGenerate, createBatch, { admitted: true })
export const listGeminiBatches = defineEndpoint(geminiGenerate, listBatches)
export const answerGeminiBatch = defineEndpoint(geminiGenerate, answerBatch)
