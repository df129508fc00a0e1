import type { ModelConfig } from '../../config/types.ts'
import { GatewayError, invalidRequest } from '../../core/errors.ts'
import { jsonResponse } from '../../edge/respond.ts'
import type { Services } from '../../edge/services.ts'
import type { Caller } from '../../relay/types.ts'
import { decodePathPart } from '../shared/path-id.ts'

/** Anthropic's model object; `max_input_tokens` / `max_tokens` carry the configured context window and output cap. */
function encodeModel(model: ModelConfig, key: Caller) {
  // The gateway has no release dates; the key's creation is when these models became available to it.
  return {
    type: 'model',
    id: model.id,
    display_name: model.id,
    created_at: new Date(key.createdAt).toISOString(),
    max_input_tokens: model.contextWindow ?? null,
    max_tokens: model.maxOutputTokens,
  }
}

function readLimit(value: string | null): number {
  if (value === null) return 20
  const limit = Number(value)
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000)
    throw invalidRequest("Invalid value for 'limit': it must be an integer between 1 and 1000.", 'limit')
  return limit
}

/** The page of `models` that `after_id` / `before_id` / `limit` select, as Anthropic pages its lists. */
function selectPage<T extends { id: string }>(models: T[], query: URLSearchParams) {
  const limit = readLimit(query.get('limit'))
  const before = query.get('before_id')
  const after = query.get('after_id')
  let start = 0
  let end = models.length
  if (after !== null) start = models.findIndex((model) => model.id === after) + 1
  if (before !== null)
    end = Math.max(
      0,
      models.findIndex((model) => model.id === before),
    )
  if (before !== null) start = Math.max(start, end - limit)
  const data = models.slice(start, Math.min(end, start + limit))
  const hasMore = before !== null ? start > 0 : start + data.length < end
  return { data, has_more: hasMore, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null }
}

/**
 * GET /v1/models for Anthropic clients: the models the calling key may use, in Anthropic's paged shape; and
 * GET /v1/models/{id}: 404 for a model that does not exist, 403 for one the key may not use.
 */
export function answerAnthropicModels(services: Services, key: Caller, request: Request): Response {
  const url = new URL(request.url)
  if (url.pathname.startsWith('/v1/models/')) {
    const id = decodePathPart(url.pathname.slice('/v1/models/'.length), 'model id')
    const model = services.relay.resolveModel(key, id)
    if (model.kind !== 'chat') {
      throw new GatewayError('not_found', `The model '${id}' is not a chat model (kind: ${model.kind}): the Messages API cannot call it`, {
        code: 'model_not_found',
      })
    }
    return jsonResponse(encodeModel(model, key))
  }
  // Anthropic's list holds the models its Messages API can call: chat models only.
  const models = services.relay
    .modelsFor(key)
    .filter((model) => model.kind === 'chat')
    .map((model) => encodeModel(model, key))
  return jsonResponse(selectPage(models, url.searchParams))
}
