import type { TelemetryConfig } from '../config/types.ts'
import type { Logger } from '../core/logger.ts'
import type { FinishedSpan, SpanSink } from '../relay/tracing.ts'

/** Spans per POST, and the most waiting at once: past that (a collector down or slow) new spans are dropped. */
const batchSize = 512
const maxQueued = 4 * batchSize
const intervalMs = 1000
/** One export may take this long; meanwhile spans queue (and past `maxQueued`, drop), requests never wait. */
const exportTimeoutMs = 10_000

/**
 * Finished spans to an OpenTelemetry collector over OTLP/HTTP JSON (`POST {endpoint}/v1/traces`), batched: every
 * second, or at once when 512 are waiting. One export is in flight at a time; a failed one is not retried, its spans
 * are counted as dropped (`/metrics`), and the first failure after a success is logged. `add` only pushes to an
 * array: nothing a request does waits on the collector.
 */
export class OtlpExporter implements SpanSink {
  exported = 0
  dropped = 0
  private queue: FinishedSpan[] = []
  private sending: Promise<void> | undefined
  private flushSoon = false
  private healthy = true
  private readonly timer: ReturnType<typeof setInterval>
  private readonly headers: Record<string, string>
  /** The resource and scope, the same in every export: encoded once. */
  private readonly head: string

  constructor(
    private readonly config: TelemetryConfig,
    private readonly logger: Logger,
    version: string,
  ) {
    this.headers = { ...config.headers, 'content-type': 'application/json' }
    const resource = { attributes: encodeAttributes({ 'service.name': config.serviceName, 'service.version': version }) }
    this.head = `{"resourceSpans":[{"resource":${JSON.stringify(resource)},"scopeSpans":[{"scope":${JSON.stringify({ name: 'tollgate', version })},"spans":`
    this.timer = setInterval(() => void this.flush(), intervalMs)
    this.timer.unref() // a gateway's telemetry never keeps a finished process alive
  }

  add(span: FinishedSpan): void {
    if (this.queue.length >= maxQueued) {
      this.dropped++
      return
    }
    this.queue.push(span)
    // A full batch goes at once, but after this request's turn: its answer is not held up by encoding a batch.
    if (this.queue.length >= batchSize && !this.flushSoon) {
      this.flushSoon = true
      setImmediate(() => {
        this.flushSoon = false
        void this.flush()
      })
    }
  }

  /** Send what is waiting, one batch after another, unless an export is in flight already. */
  flush(): Promise<void> {
    if (!this.sending && this.queue.length > 0) this.sending = this.sendAll().finally(() => (this.sending = undefined))
    return this.sending ?? Promise.resolve()
  }

  /** Stop the timer and send what is left: a shutdown waits for that up to `waitMs`, never for a hung collector. */
  async stop(waitMs = 3000): Promise<void> {
    clearInterval(this.timer)
    let timer: ReturnType<typeof setTimeout> | undefined
    const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, waitMs)))
    await Promise.race([this.flush().then(() => this.flush()), late])
    clearTimeout(timer)
  }

  private async sendAll(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, batchSize)
      if (!(await this.send(batch))) return // the collector is down: the next tick tries again with what is left
    }
  }

  private async send(batch: FinishedSpan[]): Promise<boolean> {
    let failure: string | undefined
    try {
      const response = await fetch(this.config.tracesUrl, {
        method: 'POST',
        headers: this.headers,
        body: this.encode(batch),
        signal: AbortSignal.timeout(exportTimeoutMs),
      })
      await response.arrayBuffer() // read to its end, so the connection is reused
      if (!response.ok) failure = `HTTP ${response.status}`
    } catch (error) {
      failure = (error as Error).message
    }
    if (failure === undefined) {
      this.exported += batch.length
      if (!this.healthy) this.logger.info({ endpoint: this.config.tracesUrl }, 'trace export works again')
      this.healthy = true
      return true
    }
    this.dropped += batch.length
    if (this.healthy)
      this.logger.warn(
        { endpoint: this.config.tracesUrl, error: failure, dropped: batch.length },
        'trace export failed; spans are dropped until it works',
      )
    this.healthy = false
    return false
  }

  private encode(batch: FinishedSpan[]): string {
    return `${this.head}${JSON.stringify(batch.map(encodeSpan))}}]}]}`
  }
}

const spanKinds = { server: 2, client: 3 } as const

/** One span in OTLP/JSON: ids as hex, times as unix nanoseconds in strings, attributes typed. */
function encodeSpan(span: FinishedSpan) {
  return {
    traceId: span.traceId,
    spanId: span.spanId,
    ...(span.parentSpanId ? { parentSpanId: span.parentSpanId } : {}),
    name: span.name,
    kind: spanKinds[span.kind],
    startTimeUnixNano: unixNanos(span.startMs),
    endTimeUnixNano: unixNanos(span.endMs),
    attributes: encodeAttributes(span.attributes),
    status: { code: span.failed ? 2 : 0 },
  }
}

/** Microsecond precision: milliseconds × 10⁶ is past 2⁵³, but microseconds are not (until the year 2255). */
function unixNanos(ms: number): string {
  return `${Math.round(ms * 1000)}000`
}

/** Attributes the conventions type as doubles, which JSON cannot tell from integers when they are whole. */
const doubles = new Set(['gen_ai.request.temperature', 'gen_ai.request.top_p'])

function encodeAttributes(attributes: FinishedSpan['attributes']) {
  return Object.entries(attributes).map(([key, value]) => ({ key, value: encodeValue(key, value) }))
}

function encodeValue(key: string, value: string | number | boolean | string[]): unknown {
  if (typeof value === 'string') return { stringValue: value }
  if (typeof value === 'boolean') return { boolValue: value }
  if (typeof value === 'number') return Number.isInteger(value) && !doubles.has(key) ? { intValue: String(value) } : { doubleValue: value }
  return { arrayValue: { values: value.map((item) => ({ stringValue: item })) } }
}
