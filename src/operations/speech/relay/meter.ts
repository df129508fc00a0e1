import { SseParser } from '../../../core/sse.ts'
import { checkedUsage, reportedCount, type Usage } from '../../../core/usage.ts'
import type { BytesEvent } from '../../../relay/byte-tap.ts'
import type { Meter } from '../../../relay/meter.ts'
import { countCharacters, type SpeechRequest } from '../core/ir.ts'

/** An SSE event of a speech stream is small (a delta of base64 audio); anything far larger is not read for usage. */
const maxEventChars = 4 * 1024 * 1024

/**
 * Speech's meter: the bill is the request's characters, known before anything is sent, so it is exact however the
 * answer ends once it began (the upstream read the whole input). In `stream_format: sse` the upstream reports tokens
 * in its `speech.audio.done` event, read here on the side of the relayed bytes and billed at the token prices too.
 */
export class SpeechMeter implements Meter {
  begun = false
  ended = false
  readonly finishReason = undefined
  private readonly characters: number
  private readonly parser: SseParser | undefined
  private tokens: { input: number; output: number } | undefined

  constructor(request: SpeechRequest) {
    this.characters = countCharacters(request.input)
    this.parser = request.streamFormat === 'sse' ? new SseParser(maxEventChars) : undefined
  }

  observe(event: BytesEvent): void {
    this.begun = true
    if (!this.parser || this.tokens) return
    for (const sse of this.parser.push(event.bytes)) {
      if (!sse.data.includes('"speech.audio.done"')) continue
      try {
        const usage = (JSON.parse(sse.data) as { usage?: { input_tokens?: unknown; output_tokens?: unknown } }).usage
        const checked = checkedUsage({
          inputTokens: reportedCount(usage?.input_tokens),
          outputTokens: reportedCount(usage?.output_tokens),
          cachedInputTokens: 0,
          cacheWriteTokens: 0,
          reasoningTokens: 0,
        })
        if (checked) this.tokens = { input: checked.inputTokens, output: checked.outputTokens }
      } catch {
        // A done event that is not JSON reports nothing: the characters are still billed.
      }
    }
  }

  observeAnswer(): void {
    // Speech is always relayed as a stream of bytes.
  }

  finalReport(): Usage {
    return {
      inputTokens: this.tokens?.input ?? 0,
      outputTokens: this.tokens?.output ?? 0,
      cachedInputTokens: 0,
      cacheWriteTokens: 0,
      reasoningTokens: 0,
      units: this.characters,
    }
  }

  async estimatedUsage(): Promise<Usage> {
    return this.finalReport()
  }
}
