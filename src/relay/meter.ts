import type { AnswerEvent } from '../core/operation.ts'
import type { Usage } from '../core/usage.ts'

/**
 * What an attempt's answer is billed from, whatever the operation: it watches the answer go by (streamed or whole)
 * and knows, at the end, what to bill — the upstream's report when one came, else an estimate of what was produced.
 * Each operation has its own (operations/<name>/relay/meter.ts), made per attempt by `Operation.createMeter`.
 */
export interface Meter {
  /** The answer has begun: from here on bytes may reach the client, so the request can no longer be retried. */
  readonly begun: boolean
  /** The answer was read to its natural end (a whole body, or a stream's last event with no error): its report is final. */
  ended: boolean
  /**
   * How the answer said it finished, once it did: a passthrough stream holds back what follows (usage, the closing
   * event) until the bill is durable (passthrough-tap.ts). Also a trace attribute.
   */
  readonly finishReason: string | undefined
  /** One event of a streamed answer. */
  observe(event: AnswerEvent): void
  /** A whole (non-streamed) answer, in the operation's IR: read to its end. */
  observeAnswer(answer: unknown): void
  /**
   * The usual case, a finished answer with the upstream's report: answered at once, without a promise (callers write
   * `meter.finalReport() ?? await meter.estimatedUsage()`).
   */
  finalReport(): Usage | undefined
  /** What to bill otherwise: the report so far where there is one, and at least an estimate of what was produced. */
  estimatedUsage(): Promise<Usage>
}
