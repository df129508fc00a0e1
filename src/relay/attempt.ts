import type { RoutingConfig } from '../config/types.ts'
import { breakerVerdict } from '../core/error-codes.ts'
import type { Logger } from '../core/logger.ts'
import type { Provider, Target } from '../core/provider.ts'
import type { CircuitBreaker } from './circuit-breaker.ts'
import type { Meter } from './meter.ts'
import type { Metrics } from './metrics.ts'
import type { RouteTicket } from './route-health.ts'
import type { Settlement } from './settlement.ts'
import type { StreamEnding } from './stream-ending.ts'
import type { RequestSpan } from './tracing.ts'
import type { Outcome, RelayCall } from './types.ts'

/** What every attempt of one request shares: made once per request by the relay (run-attempts.ts). */
export interface AttemptContext {
  call: RelayCall
  /** Every target the request may use, best first (routing.ts `RoutePlanner.plan`). */
  plan: readonly Target[]
  providers: Map<string, Provider>
  breaker: CircuitBreaker
  metrics: Metrics
  logger: Logger
  routing: RoutingConfig
  settlement: Settlement
  /** The request's trace span, when telemetry is on and the request is sampled. */
  span: RequestSpan | undefined
  /** limits.write_idle_ms: how long a streamed answer waits on a client that takes nothing. */
  writeIdleMs: number
}

/** A target and its route's name, as the attempt loop chooses them. */
export interface Route {
  target: Target
  route: string
}

/**
 * One upstream attempt of a request: where it goes, its own abort controller (relay/abort-scope.ts), the meter its
 * answer is billed from, the traceparent it sends, and its route's circuit-breaker ticket. The operation's `open`
 * sends it; `end` reports how it went and settles the request.
 *
 * A stream keeps its attempt for as long as it is open, so the attempt keeps only what its end needs (the call, the
 * settlement, the metrics, the span), not the request's whole AttemptContext.
 */
export class Attempt implements StreamEnding {
  readonly call: RelayCall
  private readonly settlement: Settlement
  private readonly metrics: Metrics
  private readonly span: RequestSpan | undefined
  readonly provider: Provider
  readonly target: Target
  readonly upstream: AbortController
  readonly meter: Meter
  /** A traced attempt sends its own span's traceparent; an untraced one passes on the client's (unsampled) one, if any. */
  readonly traceparent: string | null | undefined
  /** A streamed answer's end has been told (`finish`). */
  done = false

  constructor(
    context: AttemptContext,
    readonly route: Route,
    private readonly ticket: RouteTicket,
    readonly number: number,
  ) {
    const { call, span } = context
    this.call = call
    this.settlement = context.settlement
    this.metrics = context.metrics
    this.span = span
    this.target = route.target
    this.provider = context.providers.get(route.target.provider.name)!
    this.upstream = call.scope.attempt()
    this.meter = call.operation.createMeter(call.request)
    this.traceparent = span ? span.startAttempt(route.target, route.route, number) : call.traceparent
  }

  /**
   * An attempt whose answer began has ended: report it and settle the request. Settles at once when the bill needs no
   * token estimate (a finished answer with a usage report), else once the estimate is ready.
   */
  end(outcome: Omit<Outcome, 'usage'>): Promise<void> {
    const { settlement, meter } = this
    // A finished answer was read to its end: nothing to abort (and aborting costs more than it looks, per request).
    if (outcome.status !== 200) this.upstream.abort()
    if (this.span) this.span.finishReason = meter.finishReason
    this.report(outcome)
    // The answer began, so some of it reached the client: however it ended (finished, the client leaving, the
    // upstream cutting it, a timeout), what was produced is billed — the upstream's final report when the answer was
    // read to its end, else the report so far and at least the estimate of what was produced.
    const usage = meter.finalReport()
    if (usage) return settlement.settle(this.target, outcome, this.number, usage)
    return this.settleEstimated(outcome)
  }

  /**
   * Settled once the meter's estimate is ready. A method of its own: a closure in `end` would make its variables a
   * scope object on every call, the usual one (a final report, no closure made) included.
   */
  private async settleEstimated(outcome: Omit<Outcome, 'usage'>): Promise<void> {
    await this.settlement.settle(this.target, outcome, this.number, await this.meter.estimatedUsage())
  }

  /**
   * A streamed answer's end, told once however many ways it ends (stream-ending.ts): the first call ends the attempt,
   * later ones do nothing.
   */
  async finish(outcome: Omit<Outcome, 'usage'>): Promise<void> {
    if (this.done) return
    this.done = true
    await this.end(outcome)
  }

  /** Tell the circuit breaker and the metrics how the attempt went. */
  report(outcome: Omit<Outcome, 'usage'>): void {
    const { ticket } = this
    const reason = outcome.status === 200 ? 'ok' : (outcome.errorType ?? String(outcome.status))
    this.metrics.attempts.add(1, this.route.route, reason)
    this.span?.endAttempt(outcome.status, reason)
    // What counts against a route is the error table's to say (core/error-codes.ts): a client leaving, the gateway
    // stopping or its own failure would let one tenant's requests open a route for everyone.
    const verdict = breakerVerdict(outcome.status, outcome.errorType, outcome.failure?.kind)
    if (verdict === 'success') ticket.succeeded()
    else if (verdict === 'ignore') ticket.released()
    else ticket.failed(reason)
  }
}
