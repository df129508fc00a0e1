import type { Target } from '../../../core/provider.ts'
import { checkedUsage, reportedCount } from '../../../core/usage.ts'
import { refuseField } from '../../../providers/refuse-field.ts'
import { type EmbeddingsAnswer, type EmbeddingsRequest, isText, type Vector } from '../core/ir.ts'
import type { EmbeddingsHttpCodec } from './http.ts'
import { malformedEmbeddings } from './malformed.ts'

interface GeminiEmbedding {
  values?: unknown
}

interface GeminiEmbedAnswer {
  /** :batchEmbedContents */
  embeddings?: GeminiEmbedding[]
  /** :embedContent (a forwarded single request) */
  embedding?: GeminiEmbedding
  /** Newer models report it; the documented endpoints do not, and the gateway then counts the inputs itself. */
  usageMetadata?: { promptTokenCount?: unknown }
}

/**
 * IR → a `:batchEmbedContents` body, one request per input (one input is a batch of one, as Google's own SDK sends
 * it). `dimensions` is `outputDimensionality`; the end-user id has no Gemini field and is left out.
 */
export function encodeGeminiEmbeddings(request: EmbeddingsRequest, target: Target): { path: string; body: unknown } {
  const model = `models/${target.upstreamModel.replace(/^models\//, '')}`
  const requests = request.inputs.map((input) => {
    if (!isText(input)) throw refuseField('input', 'gemini', 'embeds text only, not token ids')
    const one: Record<string, unknown> = { model, content: { parts: [{ text: input.text }] } }
    if (input.taskType !== undefined) one.taskType = input.taskType
    if (input.title !== undefined) one.title = input.title
    if (request.dimensions !== undefined) one.outputDimensionality = request.dimensions
    return one
  })
  return { path: `/v1beta/${model}:batchEmbedContents`, body: { requests } }
}

/** A `:batchEmbedContents` (or `:embedContent`) answer → IR, in the requests' order. */
function decodeGeminiEmbeddings(body: unknown): EmbeddingsAnswer {
  const answer = (body ?? {}) as GeminiEmbedAnswer
  const embeddings = answer.embeddings ?? (answer.embedding ? [answer.embedding] : undefined)
  if (!Array.isArray(embeddings)) throw malformedEmbeddings('has no embeddings')
  const vectors: Vector[] = embeddings.map((embedding) => {
    const values = embedding?.values
    if (!Array.isArray(values) || !values.every((number) => typeof number === 'number'))
      throw malformedEmbeddings('holds an embedding without numbers')
    return values as number[]
  })
  const reported = answer.usageMetadata?.promptTokenCount
  const usage =
    reported === undefined
      ? undefined
      : checkedUsage({
          inputTokens: reportedCount(reported),
          cachedInputTokens: 0,
          cacheWriteTokens: 0,
          outputTokens: 0,
          reasoningTokens: 0,
        })
  return { model: '', vectors, usage }
}

/** Gemini's batchEmbedContents takes at most 100 requests. */
export const geminiEmbeddingsCodec: EmbeddingsHttpCodec = {
  nativeProtocol: 'gemini-embeddings',
  inputsPerCall: 100,
  encodeRequest: encodeGeminiEmbeddings,
  decodeResponse: decodeGeminiEmbeddings,
}
