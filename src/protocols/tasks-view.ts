import { Elysia, t } from 'elysia'
import { GatewayError } from '../core/errors.ts'
import { bearerToken } from '../edge/auth.ts'
import { jsonResponse } from '../edge/respond.ts'
import type { Services } from '../edge/services.ts'
import { presentTask } from '../edge/tasks.ts'
import type { Caller } from '../relay/types.ts'
import { anthropicErrorResponse } from './anthropic/error-response.ts'
import { geminiErrorResponse } from './gemini/error-response.ts'
import { openAiErrorResponse } from './openai-chat/error-response.ts'
import type { ProtocolFront, ProtocolHandler } from './shared/client-protocol.ts'
import { type ClientShape, clientShapeOf } from './shared/client-shape.ts'
import { defineEndpoint, type EndpointAnswer } from './shared/define-endpoint.ts'
import { pageLimit } from './shared/page-limit.ts'
import { decodePathPart } from './shared/path-id.ts'

/** Any protocol's key, and errors in the shape of the client that asked (shared/client-shape.ts). */
const anyFront: ProtocolFront = {
  readSecret: (request) =>
    request.headers.get('x-goog-api-key') ??
    request.headers.get('x-api-key') ??
    new URL(request.url).searchParams.get('key') ??
    bearerToken(request),
  renderError: (failure, requestId) => openAiErrorResponse(failure, requestId),
}

const fronts: Record<ClientShape, ProtocolFront> = {
  openai: anyFront,
  gemini: { ...anyFront, renderError: geminiErrorResponse },
  anthropic: { ...anyFront, renderError: anthropicErrorResponse },
}

/** One handler per client shape, made once: each request picks its own. */
function byClientShape(answer: EndpointAnswer): ProtocolHandler {
  const handlers: Record<ClientShape, ProtocolHandler> = {
    openai: defineEndpoint(fronts.openai, answer),
    gemini: defineEndpoint(fronts.gemini, answer),
    anthropic: defineEndpoint(fronts.anthropic, answer),
  }
  return (services, request) => handlers[clientShapeOf(request)](services, request)
}

/** GET /v1/tasks?limit=&after= : the calling key's account's batches of every kind, newest first. */
async function listTasks(services: Services, caller: Caller, request: Request): Promise<Response> {
  const query = new URL(request.url).searchParams
  const limit = pageLimit(query.get('limit'), 20, 100)
  const { tasks, hasMore } = await services.tasks.list(caller.accountId, { limit, after: query.get('after') ?? undefined })
  const data = tasks.map(presentTask)
  return jsonResponse({ object: 'list', data, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null, has_more: hasMore })
}

/** GET /v1/tasks/{id}: any protocol's own ID (`batch_…`, `msgbatch_…`, `batches/…`). */
async function showTask(services: Services, caller: Caller, request: Request): Promise<Response> {
  const id = decodePathPart(new URL(request.url).pathname.slice('/v1/tasks/'.length), 'task ID').replace(/^batches\//, '')
  const task = await services.tasks.find(caller.accountId, id)
  if (!task) throw new GatewayError('not_found', `No task found with id '${id}'.`, { code: 'task_not_found' })
  return jsonResponse(presentTask(task))
}

const list = byClientShape(listTasks)
const show = byClientShape(showTask)

const listQuery = t.Object(
  {
    limit: t.Optional(t.String({ description: 'How many tasks, from 1 to 100 (20 when absent)' })),
    after: t.Optional(t.String({ description: 'The id of the last task of the previous page' })),
    key: t.Optional(t.String({ description: "A Gemini client's API key, when it is not in a header" })),
  },
  { additionalProperties: true },
)

/**
 * Tollgate's own view of every kind of batch: off the hot path, so ordinary Elysia routes (app.ts mounts them), each
 * through the same front door as every endpoint (define-endpoint.ts), its errors in the shape of the client that asked.
 */
export function taskViewRoutes(services: Services) {
  return new Elysia({ name: 'tasks-view' })
    .get('/v1/tasks', ({ request }) => list(services, request), { query: listQuery })
    .get('/v1/tasks/*', ({ request }) => show(services, request))
}
