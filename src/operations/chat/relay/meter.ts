import { estimateTokens } from '../../../core/estimate.ts'
import { checkedUsage } from '../../../core/usage.ts'
import type { Meter } from '../../../relay/meter.ts'
import type { ChatRequest, ChatResponse, ContentPart, FinishReason, StreamEvent, Usage } from '../core/ir.ts'
import { promptText } from '../core/prompt-text.ts'

/**
 * Chat's meter: watches an answer go by (streamed or whole) and knows, at the end, what to bill: the upstream's
 * usage report when one came, otherwise an estimate from the prompt and the text actually produced.
 */
export class ChatMeter implements Meter {
  private reported: Usage | undefined
  private produced = ''
  finishReason: FinishReason | undefined
  /** True once any answer content has been seen. */
  private sawOutput = false
  /** The answer was read to its natural end (a whole body, or a stream's last event with no error): its report is final. */
  ended = false

  constructor(private readonly request: ChatRequest) {}

  /** The answer has begun: from here on bytes may reach the client, so the request can no longer be retried. */
  get begun(): boolean {
    return this.sawOutput || this.finishReason !== undefined
  }

  observe(event: StreamEvent): void {
    switch (event.type) {
      case 'text-delta':
      case 'reasoning-delta':
        this.produced += event.text
        this.sawOutput = true
        break
      case 'tool-call-start':
        this.produced += event.name
        this.sawOutput = true
        break
      case 'tool-call-delta':
        this.produced += event.arguments
        break
      case 'usage':
        this.reported = checkedUsage(event.usage) // decoders check already; a provider that does not cannot wedge billing
        break
      case 'finish':
        this.finishReason = event.reason
        break
    }
  }

  observeAnswer(response: ChatResponse): void {
    for (const part of response.content) this.produced += partText(part)
    this.sawOutput = response.content.length > 0
    this.ended = true
    this.reported = response.usage && checkedUsage(response.usage)
    this.finishReason = response.finishReason
  }

  /**
   * What to bill. A complete answer: the upstream's report when it has one, else an estimate. An answer cut short
   * (the client left, the stream broke): the report may be partial (Anthropic reports input first, output last), so
   * each count is the report's when it has one and at least the estimate of the text actually produced.
   */
  estimatedUsage(): Promise<Usage> {
    return this.estimate(this.usefulReport())
  }

  /**
   * The usual case, a finished answer with the upstream's report, which needs no tokenizer: answered at once,
   * without a promise (callers write `meter.finalReport() ?? await meter.estimatedUsage()`).
   */
  finalReport(): Usage | undefined {
    return this.ended ? this.usefulReport() : undefined
  }

  private usefulReport(): Usage | undefined {
    return this.reported && (this.reported.inputTokens > 0 || this.reported.outputTokens > 0) ? this.reported : undefined
  }

  private async estimate(reported: Usage | undefined): Promise<Usage> {
    const outputTokens = await estimateTokens(this.produced)
    const inputTokens = reported?.inputTokens || (await estimateTokens(promptText(this.request)))
    if (reported) {
      if (reported.outputTokens >= outputTokens) return reported
      return { ...reported, inputTokens, outputTokens, estimated: true }
    }
    return { inputTokens, cachedInputTokens: 0, cacheWriteTokens: 0, outputTokens, reasoningTokens: 0, estimated: true }
  }
}

function partText(part: ContentPart): string {
  if (part.type === 'text' || part.type === 'reasoning') return part.text
  if (part.type === 'tool-call') return part.name + part.arguments
  return ''
}
