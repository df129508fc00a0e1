import type { Target } from '../../../core/provider.ts'
import { checkedUsage, reportedCount } from '../../../core/usage.ts'
import { refuseField } from '../../../providers/refuse-field.ts'
import { type EmbeddingsAnswer, type EmbeddingsRequest, isText, type TextInput, type Vector } from '../core/ir.ts'
import { decodeBase64Vector } from '../core/vectors.ts'
import type { EmbeddingsHttpCodec } from './http.ts'
import { malformedEmbeddings } from './malformed.ts'

interface OpenAiEmbeddingList {
  data?: { index?: unknown; embedding?: unknown }[]
  model?: unknown
  usage?: { prompt_tokens?: unknown } | null
}

/** Gemini's task type that asks for nothing in particular: what every OpenAI-compatible embedding already is. */
const noTaskType = 'TASK_TYPE_UNSPECIFIED'

/** What only Gemini takes, refused toward an upstream that would silently give a vector made for something else. */
function refuseGeminiOnly(input: TextInput): void {
  if (input.taskType !== undefined && input.taskType !== noTaskType) {
    throw refuseField('taskType', 'openai', 'has no task types: its vectors are the same whatever they are for')
  }
  if (input.title !== undefined) throw refuseField('title', 'openai', 'takes no document titles')
}

/** IR → an OpenAI (or compatible) `/embeddings` body: text as strings, token ids as arrays of ids. */
export function encodeOpenAiEmbeddings(request: EmbeddingsRequest, target: Target): { path: string; body: unknown } {
  const texts = request.inputs.every(isText)
  const input = request.inputs.map((item) => {
    if (!isText(item)) return item.tokens
    refuseGeminiOnly(item)
    return item.text
  })
  if (!texts && !request.inputs.every((item) => !isText(item)))
    throw refuseField('input', 'openai', 'takes either texts or token ids in one request, not both')
  const body: Record<string, unknown> = { model: target.upstreamModel, input, encoding_format: request.encoding }
  if (request.dimensions !== undefined) body.dimensions = request.dimensions
  if (request.user !== undefined) body.user = request.user
  return { path: '/embeddings', body }
}

/** An `/embeddings` answer → IR: vectors in input order (by their `index`), as numbers or base64 float32s. */
function decodeOpenAiEmbeddings(body: unknown): EmbeddingsAnswer {
  const list = (body ?? {}) as OpenAiEmbeddingList
  if (!Array.isArray(list.data)) throw malformedEmbeddings('has no data')
  const vectors: Vector[] = new Array(list.data.length)
  list.data.forEach((item, position) => {
    const index = typeof item?.index === 'number' ? item.index : position
    if (!Number.isInteger(index) || index < 0 || index >= vectors.length || vectors[index])
      throw malformedEmbeddings(`numbers a vector ${String(item?.index)}`)
    vectors[index] = readVector(item.embedding)
  })
  const tokens = reportedCount(list.usage?.prompt_tokens)
  const usage = checkedUsage({ inputTokens: tokens, cachedInputTokens: 0, cacheWriteTokens: 0, outputTokens: 0, reasoningTokens: 0 })
  return { model: typeof list.model === 'string' ? list.model : '', vectors, usage }
}

function readVector(value: unknown): Vector {
  if (typeof value === 'string') return decodeBase64Vector(value) ?? invalid()
  if (!Array.isArray(value) || !value.every((number) => typeof number === 'number')) return invalid()
  return value as number[]
}

function invalid(): never {
  throw malformedEmbeddings('holds a vector that is neither numbers nor base64 float32s')
}

/** OpenAI's own limit of inputs per request; compatible servers often take fewer (`embedding_inputs_per_call`). */
export const openAiEmbeddingsCodec: EmbeddingsHttpCodec = {
  nativeProtocol: 'openai-embeddings',
  inputsPerCall: 2048,
  encodeRequest: encodeOpenAiEmbeddings,
  decodeResponse: decodeOpenAiEmbeddings,
}
