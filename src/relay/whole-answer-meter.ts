import type { Usage } from '../core/usage.ts'
import type { Meter } from './meter.ts'

/**
 * The meter of an operation whose answers are whole, never streamed, and come with their usage settled already by
 * the operation's `open` (the upstream's report, or its own count marked estimated): images, rerank. Before an
 * answer, only a client that left is billed — at what `beforeAnswer` says (its input, as a chat client that leaves
 * pays for its prompt).
 */
export class WholeAnswerMeter implements Meter {
  private usage: Usage | undefined
  ended = false
  readonly finishReason = undefined

  constructor(private readonly beforeAnswer: () => Usage | Promise<Usage>) {}

  get begun(): boolean {
    return this.usage !== undefined
  }

  observe(): void {
    // Never streamed.
  }

  observeAnswer(answer: { usage?: Usage }): void {
    this.usage = answer.usage
    this.ended = true
  }

  finalReport(): Usage | undefined {
    return this.ended ? this.usage : undefined
  }

  async estimatedUsage(): Promise<Usage> {
    return this.usage ?? (await this.beforeAnswer())
  }
}
