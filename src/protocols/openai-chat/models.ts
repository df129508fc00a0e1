import { jsonResponse } from '../../edge/respond.ts'
import type { Services } from '../../edge/services.ts'
import type { Caller } from '../../relay/types.ts'

/**
 * GET /v1/models: exactly the models the calling key may use, in OpenAI's list shape. OpenAI's own list says nothing
 * of what a model serves or of sizes; `type` (`chat` or `embedding`) does, as OpenAI-compatible hosts that serve both
 * write it, and `context_window` and `max_output_tokens` (the config's, null when unset or when an embedding model has
 * no output) are added for clients and tools that budget by them, as other OpenAI-compatible servers do.
 */
export function listOpenAiModels(services: Services, key: Caller): Response {
  const created = Math.floor(key.createdAt / 1000)
  const data = services.relay.modelsFor(key).map((model) => ({
    id: model.id,
    object: 'model',
    created,
    owned_by: model.ownedBy,
    type: model.kind,
    context_window: model.contextWindow ?? null,
    max_output_tokens: model.kind === 'chat' ? model.maxOutputTokens : null,
  }))
  return jsonResponse({ object: 'list', data })
}
