import type { Usage } from '../../../core/usage.ts'
import type { Meter } from '../../../relay/meter.ts'
import type { ImagesAnswer, ImagesRequest } from '../core/ir.ts'
import { requestVariant, roughPromptTokens } from '../core/bill.ts'

/**
 * Images' meter: an answer is whole and comes with its usage settled already (operation.ts). A client that leaves
 * before it is billed for its prompt, as a chat client that leaves pays for its prompt: no image reached it, so no
 * image is billed (a model priced per image costs nothing then).
 */
export class ImagesMeter implements Meter {
  private usage: Usage | undefined
  ended = false
  readonly finishReason = undefined

  constructor(private readonly request: ImagesRequest) {}

  get begun(): boolean {
    return this.usage !== undefined
  }

  observe(): void {
    // Images are never streamed.
  }

  observeAnswer(answer: ImagesAnswer): void {
    this.usage = answer.usage
    this.ended = true
  }

  finalReport(): Usage | undefined {
    return this.ended ? this.usage : undefined
  }

  async estimatedUsage(): Promise<Usage> {
    if (this.usage) return this.usage
    const inputTokens = roughPromptTokens(this.request)
    return { inputTokens, cachedInputTokens: 0, cacheWriteTokens: 0, outputTokens: 0, reasoningTokens: 0, units: 0, variant: requestVariant(this.request), estimated: true }
  }
}
