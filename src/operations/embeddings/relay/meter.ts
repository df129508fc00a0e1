import type { Usage } from '../../../core/usage.ts'
import type { Meter } from '../../../relay/meter.ts'
import { countInputTokens } from '../core/count-inputs.ts'
import type { EmbeddingsAnswer, EmbeddingsRequest } from '../core/ir.ts'

/**
 * Embeddings' meter: an answer is whole (never streamed), and comes with its usage settled already (the upstream's
 * report, or the gateway's count of the inputs, marked estimated: operation.ts). Before an answer, only a client
 * that left is billed, for its inputs, as a chat client that leaves pays for its prompt.
 */
export class EmbeddingsMeter implements Meter {
  private usage: Usage | undefined
  ended = false
  readonly finishReason = undefined

  constructor(private readonly request: EmbeddingsRequest) {}

  get begun(): boolean {
    return this.usage !== undefined
  }

  observe(): void {
    // Embeddings are never streamed.
  }

  observeAnswer(answer: EmbeddingsAnswer): void {
    this.usage = answer.usage
    this.ended = true
  }

  finalReport(): Usage | undefined {
    return this.ended ? this.usage : undefined
  }

  async estimatedUsage(): Promise<Usage> {
    if (this.usage) return this.usage
    const inputTokens = await countInputTokens(this.request.inputs)
    return { inputTokens, cachedInputTokens: 0, cacheWriteTokens: 0, outputTokens: 0, reasoningTokens: 0, estimated: true }
  }
}
