import type { ModelConfig, ModelKind } from '../../config/types.ts'
import { invalidRequest } from '../../core/errors.ts'
import { jsonResponse } from '../../edge/respond.ts'
import type { Services } from '../../edge/services.ts'
import type { Caller } from '../../relay/types.ts'
import { optionalNumber } from '../shared/validate.ts'
import { modelPathOf, readModel } from './model-path.ts'

/** A model without a configured context window: a common size, so clients that budget by it stay conservative. */
const defaultInputTokenLimit = 128_000

/**
 * What each kind of model can be called with, as Gemini lists it: clients pick models by these methods. A kind Gemini's
 * API has no method for (speech, transcription) is listed with none.
 */
const methodsByKind: Partial<Record<ModelKind, string[]>> = {
  chat: ['generateContent', 'streamGenerateContent', 'countTokens'],
  embedding: ['embedContent', 'batchEmbedContents'],
  image: [],
  rerank: [],
}

function describeModel(model: ModelConfig) {
  return {
    name: `models/${model.id}`,
    version: '001',
    displayName: model.id,
    description: `${model.id}, served by Tollgate`,
    inputTokenLimit: model.contextWindow ?? defaultInputTokenLimit,
    // An embedding answers with a vector, not tokens: Gemini lists its embedding models with an output limit of 1.
    outputTokenLimit: model.kind === 'chat' ? model.maxOutputTokens : 1,
    supportedGenerationMethods: methodsByKind[model.kind] ?? [],
  }
}

/**
 * GET /v1beta/models (and /v1/models from a Gemini client): the models the key may use, paged like the API
 * (`pageSize`, an opaque `pageToken`); GET …/models/{model}: 404 for an unknown model, 403 for one the key may not use.
 */
export function answerGeminiModels(services: Services, key: Caller, request: Request): Response {
  const url = new URL(request.url)
  const rest = modelPathOf(url)
  if (rest !== '') return jsonResponse(describeModel(services.relay.resolveModel(key, readModel(rest))))
  const query = url.searchParams
  const size =
    optionalNumber(query.has('pageSize') ? Number(query.get('pageSize')) : undefined, 'pageSize', { min: 1, integer: true }) ?? 50
  const token = query.get('pageToken') || '0'
  const offset = Number(token)
  if (!/^\d+$/.test(token))
    throw invalidRequest(`Invalid value for 'pageToken': '${token}' is not a token this gateway issued.`, 'pageToken')
  const models = services.relay.modelsFor(key)
  const page = models.slice(offset, offset + Math.min(size, 1000))
  const next = offset + page.length < models.length ? String(offset + page.length) : undefined
  return jsonResponse({ models: page.map(describeModel), ...(next && { nextPageToken: next }) })
}
