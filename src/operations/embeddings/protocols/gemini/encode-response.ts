import type { EmbeddingsAnswer } from '../../core/ir.ts'
import { floatsOf } from '../../core/vectors.ts'

/** IR → `:embedContent`'s `{embedding: {values}}`, or `:batchEmbedContents`' `{embeddings: [{values}]}` in order. */
export function encodeGeminiEmbeddings(answer: EmbeddingsAnswer, batch: boolean): string {
  if (!batch) return JSON.stringify({ embedding: { values: floatsOf(answer.vectors[0]!) } })
  return JSON.stringify({ embeddings: answer.vectors.map((vector) => ({ values: floatsOf(vector) })) })
}
