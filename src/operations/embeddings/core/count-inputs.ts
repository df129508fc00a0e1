import { estimateTokens } from '../../../core/estimate.ts'
import { type EmbeddingInput, isText } from './ir.ts'

/**
 * The inputs' tokens by the gateway's tokenizer (token ids count one each): what an embeddings answer is billed at
 * when its upstream reports no usage (Gemini's embed endpoints never do), each input's text counted on its own, as
 * the upstream embeds them.
 */
export async function countInputTokens(inputs: EmbeddingInput[]): Promise<number> {
  let total = 0
  for (const input of inputs) total += isText(input) ? await estimateTokens(input.text) : input.tokens.length
  return total
}

/** A rough count without the tokenizer (characters / 4): what a key's tpm limit is charged at admission. */
export function roughInputTokens(inputs: EmbeddingInput[]): number {
  let total = 0
  for (const input of inputs) total += isText(input) ? Math.ceil(input.text.length / 4) : input.tokens.length
  return total
}
