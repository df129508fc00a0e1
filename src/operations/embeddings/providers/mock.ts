import type { EmbeddingInput, EmbeddingsAnswer } from '../core/ir.ts'
import { isText } from '../core/ir.ts'
import type { EmbeddingsUpstream } from '../core/upstream.ts'
import type { ProviderConfig } from '../../../config/types.ts'

/** The mock's vectors when the request names no length. */
const mockDimensions = 256

/**
 * A deterministic unit vector for a text: the same text always gets the same vector, different texts (almost surely)
 * different ones, so a test can tell which text reached which vector, and cosine similarity is just a dot product.
 * Float32s from a small PRNG seeded by the text's FNV-1a hash, normalised.
 */
export function mockEmbedding(text: string, dimensions = mockDimensions): Float32Array {
  let seed = 0x811c9dc5
  for (let index = 0; index < text.length; index++) seed = Math.imul(seed ^ text.charCodeAt(index), 0x01000193) >>> 0
  const vector = new Float32Array(dimensions)
  let norm = 0
  for (let index = 0; index < dimensions; index++) {
    // xorshift32: cheap, and plenty for a stand-in
    seed ^= seed << 13
    seed ^= seed >>> 17
    seed ^= seed << 5
    seed >>>= 0
    const value = seed / 0x100000000 - 0.5
    vector[index] = value
    norm += value * value
  }
  const scale = 1 / Math.sqrt(norm || 1)
  for (let index = 0; index < dimensions; index++) vector[index]! *= scale
  return vector
}

/** What the mock embeds for an input: its text, or its token ids written out. */
function textOf(input: EmbeddingInput): string {
  return isText(input) ? input.text : `tokens:${input.tokens.join(',')}`
}

/** A token per four characters, as the mock's chat counts; a token id is one token. */
function tokensOf(input: EmbeddingInput): number {
  return isText(input) ? Math.ceil(input.text.length / 4) : input.tokens.length
}

/**
 * The built-in provider's embeddings: in-process vectors of `mockEmbedding`, usage reported like OpenAI's (so a bill
 * is exact), every input in one call unless `embedding_inputs_per_call` says otherwise. Task types and titles are
 * accepted and change nothing, as generation settings change nothing in the mock's chat.
 */
export function createMockEmbeddingsUpstream(config: ProviderConfig): EmbeddingsUpstream {
  return {
    inputsPerCall: config.embeddingInputsPerCall ?? Number.POSITIVE_INFINITY,
    async embed(request, target): Promise<EmbeddingsAnswer> {
      let inputTokens = 0
      const vectors = request.inputs.map((input) => {
        inputTokens += tokensOf(input)
        return mockEmbedding(textOf(input), request.dimensions)
      })
      return {
        model: target.upstreamModel,
        vectors,
        usage: { inputTokens, cachedInputTokens: 0, cacheWriteTokens: 0, outputTokens: 0, reasoningTokens: 0 },
      }
    },
  }
}
