import type { ProviderType } from '../config/types.ts'
import type { Target } from '../core/provider.ts'
import { formatUsd } from '../core/money.ts'
import { boundModel } from './refusal.ts'
import type { Usage } from '../core/usage.ts'
import type { Outcome, RelayCall } from './types.ts'

/**
 * What a request's trace says, in the OpenTelemetry GenAI semantic conventions: one SERVER span per request
 * (`{operation} {model}`, e.g. `chat gpt-mini`, its usage, cost and how it ended) and one CLIENT span per upstream attempt, children of the
 * client's own span when it sent a W3C `traceparent`. Only ids, model names, counts and codes go in a span: never a
 * prompt, an answer, an error's text (an upstream may quote the prompt) or a header.
 *
 * Nothing here runs when telemetry is off: the relay then has no Tracer and makes no span object at all.
 */

/** A span as the exporter gets it: OTLP's fields, attributes as plain values (typed for the wire when sent). */
export interface FinishedSpan {
  traceId: string
  spanId: string
  parentSpanId: string | undefined
  name: string
  kind: 'server' | 'client'
  /** Unix epoch milliseconds, fractional. */
  startMs: number
  endMs: number
  attributes: Record<string, string | number | boolean | string[]>
  /** The span failed (OTLP status ERROR). */
  failed: boolean
}

/** Where finished spans go (edge/otlp-exporter.ts): it takes them at once and never throws or waits. */
export interface SpanSink {
  add(span: FinishedSpan): void
}

/** The W3C traceparent a client sent: version 00 (or a later one, read as 00), ids not all zeros. */
const traceparentPattern = /^([\da-f]{2})-([\da-f]{32})-([\da-f]{16})-([\da-f]{2})(?:-.*)?$/
const zeroTrace = '0'.repeat(32)
const zeroSpan = '0'.repeat(16)

export class Tracer {
  constructor(
    readonly sink: SpanSink,
    private readonly sampleRatio: number,
  ) {}

  /**
   * The request's span, begun at `startedAt` (performance.now()), or undefined when its trace is not sampled: a
   * client's traceparent decides for its trace (its sampled flag), else `sample_ratio` does.
   */
  start(call: RelayCall, startedAt: number): RequestSpan | undefined {
    const parent = call.traceparent ? traceparentPattern.exec(call.traceparent) : null
    if (parent && parent[1] !== 'ff' && parent[2] !== zeroTrace && parent[3] !== zeroSpan) {
      if ((parseInt(parent[4]!, 16) & 1) === 0) return undefined
      return new RequestSpan(this.sink, call, startedAt, parent[2]!, parent[3]!)
    }
    if (this.sampleRatio < 1 && Math.random() >= this.sampleRatio) return undefined
    return new RequestSpan(this.sink, call, startedAt, randomHex(16), undefined)
  }
}

/** The GenAI conventions' provider names (`gen_ai.provider.name`, formerly `gen_ai.system`). */
const providerNames: Record<ProviderType, string> = { openai: 'openai', anthropic: 'anthropic', gemini: 'gcp.gemini', mock: 'mock' }

/** The one attempt of a request that is open now (a request's attempts run one after another). */
interface OpenAttempt {
  spanId: string
  target: Target
  route: string
  number: number
  startMs: number
}

/** One traced request: its SERVER span, ended by the settlement, and its attempts' CLIENT spans. */
export class RequestSpan {
  readonly spanId = randomHex(8)
  private readonly startMs: number
  private attempt: OpenAttempt | undefined
  /** How the answer finished, when it did (the meter's, set as the attempt that answered ends). */
  finishReason: string | undefined

  constructor(
    private readonly sink: SpanSink,
    private readonly call: RelayCall,
    startedAt: number,
    readonly traceId: string,
    private readonly parentSpanId: string | undefined,
  ) {
    this.startMs = performance.timeOrigin + startedAt
  }

  /** An upstream attempt begins: its CLIENT span is opened, and its traceparent is what goes upstream. */
  startAttempt(target: Target, route: string, number: number): string {
    const spanId = randomHex(8)
    this.attempt = { spanId, target, route, number, startMs: performance.timeOrigin + performance.now() }
    return `00-${this.traceId}-${spanId}-01`
  }

  /** The open attempt ended: `result` is `ok` or why it failed (the metrics' attempt result). */
  endAttempt(status: number, result: string): void {
    const attempt = this.attempt
    if (!attempt) return
    this.attempt = undefined
    const failed = result !== 'ok'
    const operation = this.call.operation.name
    const attributes: FinishedSpan['attributes'] = {
      'gen_ai.operation.name': operation,
      'gen_ai.provider.name': providerNames[attempt.target.provider.type],
      'gen_ai.request.model': attempt.target.upstreamModel,
      'tollgate.route': attempt.route,
      'tollgate.attempt': attempt.number,
      'tollgate.status_code': status,
      'tollgate.attempt.result': result,
    }
    if (failed) attributes['error.type'] = result
    this.sink.add({
      traceId: this.traceId,
      spanId: attempt.spanId,
      parentSpanId: this.spanId,
      name: `${operation} ${attempt.target.upstreamModel}`,
      kind: 'client',
      startMs: attempt.startMs,
      endMs: performance.timeOrigin + performance.now(),
      attributes,
      failed,
    })
  }

  /**
   * The request settled (settlement.ts): `target` served it if any route did; `cost` in nano-dollars; `usage` what it
   * was billed for (an ended attempt passes its meter's apart from the outcome: Settlement.settle).
   */
  end(
    target: Target | undefined,
    outcome: Outcome,
    attempts: number,
    cost: number,
    estimated: boolean,
    usage: Usage | undefined = outcome.usage,
  ): void {
    const { call } = this
    const { request, operation } = call
    // A refused request's model may be any text the client sent: cut, as its usage row's is.
    const model = boundModel(request.model)
    const attributes: FinishedSpan['attributes'] = {
      'gen_ai.operation.name': operation.name,
      'gen_ai.request.model': model,
      'tollgate.request_id': call.requestId,
      'tollgate.key_id': call.key.id,
      'tollgate.account_id': call.key.accountId,
      'tollgate.protocol': call.protocol,
      'tollgate.stream': request.stream,
      'tollgate.status_code': outcome.status,
      'tollgate.attempts': attempts,
      'tollgate.cost_usd': formatUsd(cost),
      'tollgate.estimated': estimated,
    }
    if (target) {
      const provider = providerNames[target.provider.type]
      attributes['gen_ai.provider.name'] = provider
      attributes['gen_ai.system'] = provider
      attributes['gen_ai.response.model'] = target.upstreamModel
    }
    operation.describe?.(request, attributes)
    if (usage) {
      attributes['gen_ai.usage.input_tokens'] = usage.inputTokens
      attributes['gen_ai.usage.output_tokens'] = usage.outputTokens
      if (usage.cachedInputTokens) attributes['gen_ai.usage.cache_read.input_tokens'] = usage.cachedInputTokens
    }
    if (this.finishReason) attributes['gen_ai.response.finish_reasons'] = [this.finishReason.replace('-', '_')]
    if (outcome.errorType) {
      attributes['error.type'] = outcome.errorType
      attributes['tollgate.error_type'] = outcome.errorType
    }
    this.endAttempt(outcome.status, outcome.errorType ?? (outcome.status === 200 ? 'ok' : String(outcome.status))) // one a bug left open
    this.sink.add({
      traceId: this.traceId,
      spanId: this.spanId,
      parentSpanId: this.parentSpanId,
      name: `${operation.name} ${model}`,
      kind: 'server',
      startMs: this.startMs,
      endMs: performance.timeOrigin + performance.now(),
      attributes,
      // A server span fails on the gateway's or the upstream's fault (5xx), not on a client's mistake (4xx).
      failed: outcome.status >= 500,
    })
  }
}

/**
 * Random ids from a pool filled 4 KiB at a time: one getRandomValues per ~170 requests rather than three, and hex
 * made natively by Buffer.
 */
const pool = Buffer.allocUnsafe(4096)
let used = pool.length

function randomHex(bytes: number): string {
  if (used + bytes > pool.length) {
    crypto.getRandomValues(pool)
    used = 0
  }
  const hex = pool.toString('hex', used, used + bytes)
  used += bytes
  return hex
}
