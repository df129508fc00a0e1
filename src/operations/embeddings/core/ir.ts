import type { OperationRequest } from '../../../core/operation.ts'
import type { Usage } from '../../../core/usage.ts'

/**
 * Embeddings' internal format (IR): what the OpenAI and Gemini embedding endpoints decode into and every upstream
 * kind encodes from. No vendor JSON crosses this line.
 */

/** One input to embed: text, or token ids (OpenAI's clients may send their own tokenizer's ids). */
export type EmbeddingInput = TextInput | { tokens: number[] }

export interface TextInput {
  text: string
  /** Gemini's `taskType` for this input (RETRIEVAL_QUERY, SEMANTIC_SIMILARITY…): what the vector is for. */
  taskType?: string
  /** Gemini's `title` (a document's title, with taskType RETRIEVAL_DOCUMENT). */
  title?: string
}

export interface EmbeddingsRequest extends OperationRequest {
  /** The gateway model id the client asked for (not the upstream id). */
  readonly model: string
  /** Embeddings are never streamed. */
  stream: false
  /** In the client's order; each gets one vector, at the same index. */
  inputs: EmbeddingInput[]
  /** The vectors' length, when the client asked for one (`dimensions`, `outputDimensionality`). */
  dimensions?: number
  /**
   * How the client wants its vectors (`encoding_format`): an upstream that can send them so is asked for that form.
   * Gemini's clients always get floats.
   */
  encoding: 'float' | 'base64'
  /** OpenAI's end-user id. */
  user?: string
}

/** A vector: JSON numbers as an upstream sent them, or float32s (decoded from base64, or made by the mock). */
export type Vector = number[] | Float32Array

export interface EmbeddingsAnswer {
  /** The model id the upstream answered with. */
  model: string
  /** One per input, in the request's order. */
  vectors: Vector[]
  /** Input tokens as the upstream reported them, or the gateway's own count (marked `estimated`) when it did not. */
  usage?: Usage
}

/** Whether an input is text (rather than token ids). */
export function isText(input: EmbeddingInput): input is TextInput {
  return 'text' in input
}
