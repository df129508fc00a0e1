import type { EmbeddingsAnswer } from '../../core/ir.ts'
import { encodeBase64Vector, floatsOf } from '../../core/vectors.ts'

/**
 * IR → OpenAI's embedding list: one `embedding` per input at its index, as numbers or base64 float32s (made here
 * when the upstream sent numbers), `model` as the client named it, and `usage` — the input tokens billed.
 */
export function encodeOpenAiEmbeddings(answer: EmbeddingsAnswer, model: string, encoding: 'float' | 'base64'): string {
  const data = answer.vectors.map((vector, index) => ({
    object: 'embedding',
    index,
    embedding: encoding === 'base64' ? encodeBase64Vector(vector) : floatsOf(vector),
  }))
  const tokens = answer.usage?.inputTokens ?? 0
  return JSON.stringify({ object: 'list', data, model, usage: { prompt_tokens: tokens, total_tokens: tokens } })
}
