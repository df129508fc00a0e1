import { countTokens, promptText } from './estimate.ts'
import type { ChatRequest, ChatResponse, ContentPart, FinishReason, StreamEvent, Usage } from './ir.ts'

/**
 * Watches an answer go by (streamed or whole) and knows, at the end, what to bill: the upstream's usage report
 * when one came, otherwise an estimate from the text actually produced.
 */
export class Meter {
  private reported: Usage | undefined
  private produced = ''
  finishReason: FinishReason | undefined
  /** True once any answer content has been seen (the point after which a retry is no longer possible). */
  sawOutput = false

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
        this.reported = event.usage
        break
      case 'finish':
        this.finishReason = event.reason
        break
    }
  }

  observeResponse(response: ChatResponse): void {
    for (const part of response.content) this.produced += partText(part)
    this.sawOutput = response.content.length > 0
    this.reported = response.usage
    this.finishReason = response.finishReason
  }

  /** Final usage: reported when trustworthy, otherwise counted from the prompt and the produced text. */
  async usage(request: ChatRequest): Promise<Usage> {
    if (this.reported && (this.reported.inputTokens > 0 || this.reported.outputTokens > 0)) return this.reported
    const outputTokens = await countTokens(this.produced)
    const inputTokens = await countTokens(promptText(request))
    return { inputTokens, cachedInputTokens: 0, cacheWriteTokens: 0, outputTokens, reasoningTokens: 0, estimated: true }
  }
}

function partText(part: ContentPart): string {
  if (part.type === 'text' || part.type === 'reasoning') return part.text
  if (part.type === 'tool-call') return part.name + part.arguments
  return ''
}
