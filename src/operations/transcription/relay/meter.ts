import { SseParser } from '../../../core/sse.ts'
import type { Usage } from '../../../core/usage.ts'
import type { BytesEvent } from '../../../relay/byte-tap.ts'
import type { Meter } from '../../../relay/meter.ts'
import { billedSeconds, type TranscriptionAnswer, type TranscriptionRequest } from '../core/ir.ts'
import { transcriptionTokens } from '../core/tokens.ts'

/** A transcript's SSE event is a few words of text; anything far larger is not read for usage. */
const maxEventChars = 1024 * 1024

/**
 * Transcription's meter. `units` are the whole seconds billed: the audio's length as its header gave it (known before
 * anything was sent, so exact however the answer ends), else the seconds the upstream reported, else the
 * `max_audio_seconds` it was held against, marked estimated. Tokens are billed where the upstream reports them: in a
 * whole answer's `usage`, or a stream's `transcript.text.done` event, read on the side of the relayed bytes.
 */
export class TranscriptionMeter implements Meter {
  begun = false
  ended = false
  readonly finishReason = undefined
  private parser: SseParser | undefined
  private tokens: Usage | undefined
  private reportedSeconds: number | undefined

  constructor(private readonly request: TranscriptionRequest) {}

  observe(event: BytesEvent): void {
    this.begun = true
    this.parser ??= new SseParser(maxEventChars)
    if (this.tokens) return
    for (const sse of this.parser.push(event.bytes)) {
      if (!sse.data.includes('"transcript.text.done"')) continue
      try {
        this.tokens = transcriptionTokens((JSON.parse(sse.data) as { usage?: unknown }).usage)
      } catch {
        // A done event that is not JSON reports nothing: the seconds are still billed.
      }
    }
  }

  observeAnswer(answer: TranscriptionAnswer): void {
    this.begun = true
    this.ended = true
    this.tokens = answer.usage
    this.reportedSeconds = answer.seconds
  }

  finalReport(): Usage {
    const { duration, unmeasuredSeconds } = this.request
    const measured = duration.kind === 'duration' ? billedSeconds(duration.seconds) : undefined
    const reported = this.reportedSeconds === undefined ? undefined : billedSeconds(this.reportedSeconds)
    const units = measured ?? reported ?? unmeasuredSeconds ?? 0
    const usage: Usage = {
      inputTokens: this.tokens?.inputTokens ?? 0,
      outputTokens: this.tokens?.outputTokens ?? 0,
      cachedInputTokens: 0,
      cacheWriteTokens: 0,
      reasoningTokens: 0,
      units,
    }
    if (measured === undefined && reported === undefined) usage.estimated = true
    return usage
  }

  async estimatedUsage(): Promise<Usage> {
    return this.finalReport()
  }
}
