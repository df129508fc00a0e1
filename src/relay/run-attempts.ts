import type { RoutingConfig } from '../config/types.ts'
import type { Provider, Target } from '../core/provider.ts'
import { meterEvents, openAttempt, type OpenedAttempt, readOn } from './open-attempt.ts'
import type { CircuitBreaker } from './circuit-breaker.ts'
import type { RouteTicket } from './route-health.ts'
import { clientClosed, GatewayError, toGatewayError } from '../core/errors.ts'
import type { ChatResponse, Usage } from '../core/ir.ts'
import { reportFailure } from '../core/report-failure.ts'
import type { Logger } from '../core/logger.ts'
import { Meter } from './meter.ts'
import type { Metrics } from './metrics.ts'
import type { Outcome, RelayCall, RelayResult } from './types.ts'
import { outcomeOf } from './outcome.ts'
import { backoffMs, isRetryable } from './retry.ts'
import { sleep } from '../core/sleep.ts'
import { routeId } from './route-planner.ts'
import type { Settlement } from './settlement.ts'
import type { RequestSpan } from './tracing.ts'

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

/**
 * Try the plan's targets until one answers, at most `routing.max_attempts` times: an untried healthy route first
 * (in plan order: priority, weight, then fallback models), else the same route again if the upstream's retry-after
 * allows; each retry waits an exponential, jittered backoff. Routes whose circuit is open are skipped, never waited
 * for. A failure that is the client's own fault, or that came after the answer began, is final.
 */
export async function runAttempts(context: AttemptContext): Promise<RelayResult> {
  const { call, routing, breaker } = context
  const routes = distinctRoutes(context.plan)
  // Made at the first failure: most requests never fail.
  let failures: Map<string, GatewayError> | undefined
  let excluded: Set<string> | undefined
  let last: { target: Target; failure: GatewayError } | undefined
  let attempts = 0
  // Rounds bound the loop when a route's probe slot is taken by another request while this one waited.
  for (let round = 0; attempts < routing.maxAttempts && round < routing.maxAttempts + context.plan.length; round++) {
    const choice = chooseTarget(context, routes, failures, excluded, attempts)
    if (!choice) break
    try {
      // No wait (a first attempt) needs no controller, unless the request has already been ended.
      if (choice.waitMs > 0 || call.scope.ended) await sleep(choice.waitMs, call.scope.attempt().signal)
    } catch (error) {
      const failure = toGatewayError(error)
      context.settlement.settle(last?.target, outcomeOf(failure), attempts)
      throw failure
    }
    const { route } = choice
    let ticket = breaker.acquireShared(route)
    if (ticket instanceof Promise) ticket = await ticket // a shared half-open probe slot, claimed in Redis
    if (!ticket) continue
    attempts++
    const attempt = await runAttempt(context, choice.target, route, ticket, attempts)
    if (!(attempt instanceof AttemptFailure)) return attempt
    const { failure } = attempt
    const retry = isRetryable(failure)
    if (failure.code !== 'client_closed') {
      context.logger.warn({
        request_id: call.requestId, route, attempt: attempts, error: failure.code ?? failure.kind, message: failure.message,
        detail: failure.logDetail, will_retry: retry && attempts < routing.maxAttempts,
      }, 'upstream attempt failed')
    }
    if (!retry) {
      context.settlement.settle(choice.target, { ...outcomeOf(failure), usage: attempt.usage }, attempts)
      throw failure
    }
    ;(failures ??= new Map()).set(route, failure)
    // Our credentials refused: trying this route again in this request cannot help.
    if (failure.code === 'upstream_auth') (excluded ??= new Set()).add(route)
    last = { target: choice.target, failure }
  }
  const failure = last?.failure ?? noRoute(context)
  context.settlement.settle(last?.target, outcomeOf(failure), attempts)
  throw failure
}

/** Each route once, with its first target in plan order (a fallback model may share a route with the model). */
function distinctRoutes(plan: readonly Target[]): Route[] {
  let routes = routesOfPlan.get(plan)
  if (routes) return routes
  routes = []
  for (const target of plan) {
    const route = routeId(target)
    if (!routes.some((known) => known.route === route)) routes.push({ target, route })
  }
  routesOfPlan.set(plan, routes)
  return routes
}

type Route = { target: Target; route: string }
/** Most plans are built once and shared by every request of their model (routing.ts), and so are their routes. */
const routesOfPlan = new WeakMap<readonly Target[], Route[]>()

/** The next target and how long to wait before trying it, or undefined when nothing is worth trying. */
function chooseTarget(context: AttemptContext, routes: Route[], failures: Map<string, GatewayError> | undefined, excluded: Set<string> | undefined, attempts: number) {
  const backoff = backoffMs(attempts, context.routing)
  let best: { target: Target; route: string; waitMs: number } | undefined
  for (const { target, route } of routes) {
    if (excluded?.has(route) || context.breaker.waitFor(route) > 0) continue
    const failure = failures?.get(route)
    if (!failure) return { target, route, waitMs: backoff }
    // The same route again: honour what it asked for, unless that is longer than we are willing to keep a client.
    const waitMs = Math.max(backoff, (failure.retryAfter ?? 0) * 1000)
    if (waitMs > context.routing.maxRetryAfterS * 1000) continue
    if (!best || waitMs < best.waitMs) best = { target, route, waitMs }
  }
  return best
}

/** An attempt that failed before its answer began; `usage` is what a client that left is billed for. */
class AttemptFailure {
  constructor(readonly failure: GatewayError, readonly usage?: Usage) {}
}

const finished: Omit<Outcome, 'usage'> = Object.freeze({ status: 200 })
const clientLeft: Omit<Outcome, 'usage'> = Object.freeze({ status: 499, errorType: 'client_closed' })

/** Read an opened answer to its end without sending it (a whole answer is read already). */
async function readUnsent(opened: OpenedAttempt, meter: Meter): Promise<void> {
  if (opened.kind === 'raw-stream') return opened.tap.readOn()
  if (opened.kind === 'stream') return readOn(opened.events, meter)
}

async function runAttempt(context: AttemptContext, target: Target, route: string, ticket: RouteTicket, attempts: number): Promise<RelayResult | AttemptFailure> {
  const { call } = context
  const provider = context.providers.get(target.provider.name)!
  const upstream = call.scope.attempt()
  const meter = new Meter()
  // A traced attempt sends its own span's traceparent; an untraced one passes on the client's (unsampled) one, if any.
  const traceparent = context.span ? context.span.startAttempt(target, route, attempts) : call.traceparent
  let opened: OpenedAttempt
  try {
    opened = await openAttempt(provider, target, call, meter, upstream, traceparent)
  } catch (error) {
    upstream.abort()
    // A bug in a provider is logged here, once: a retry elsewhere may hide it from the client, never from the log.
    const failure = call.scope.clientGone ? clientClosed() : reportFailure(context.logger, error, { request_id: call.requestId, route })
    report(context, route, ticket, outcomeOf(failure))
    // A client that left is billed for what was produced so far (the prompt, at least, was read upstream).
    return new AttemptFailure(failure, failure.status === 499 ? await meter.estimatedUsage(call.request) : undefined)
  }
  // A reasoning request whose client left while its answer was being opened: nobody will read the answer, but it is
  // read to its end, unsent, so that its hidden tokens are billed from the upstream's report.
  if (call.scope.readsOn) {
    await readUnsent(opened, meter)
    await endAttempt(context, target, route, ticket, meter, upstream, attempts, clientLeft)
    return new AttemptFailure(clientClosed())
  }
  // From here the answer belongs to the client: how it ends is settled, never retried. A whole answer ends here,
  // written in the client's wire format before it is settled, so that what is billed is what the client gets; a
  // stream ends when it is read to its end or dropped, so only a stream needs `end` as a closure.
  if (opened.kind === 'response' || opened.kind === 'raw') {
    const body = opened.kind === 'raw' ? opened.body : encodeWhole(call.codec, opened.response)
    if (typeof body !== 'string') {
      // The upstream answered well (the route is healthy), but the client gets nothing: a 500 that costs nothing.
      report(context, route, ticket, finished)
      context.settlement.settle(target, outcomeOf(body), attempts)
      throw body
    }
    await endAttempt(context, target, route, ticket, meter, upstream, attempts, finished)
    return { kind: 'whole', body, target }
  }
  const end = (outcome: Omit<Outcome, 'usage'>) => endAttempt(context, target, route, ticket, meter, upstream, attempts, outcome)
  if (opened.kind === 'stream') return { kind: 'stream', events: meterEvents(opened.head, opened.events, meter, call.scope, end), target }
  return { kind: 'raw-stream', body: opened.tap.toStream(end, context.writeIdleMs), target }
}

/** The protocol's encoding of a whole answer, or the internal failure (with its cause) when encoding threw. */
function encodeWhole(codec: RelayCall['codec'], response: ChatResponse): string | GatewayError {
  try {
    return codec.encodeWhole(response)
  } catch (error) {
    return new GatewayError('internal', 'The answer could not be encoded', { cause: error })
  }
}

/**
 * An attempt whose answer began has ended: report it and settle the request. Settles at once when the bill needs no
 * token estimate (a finished answer with a usage report), else once the estimate is ready.
 */
function endAttempt(
  context: AttemptContext, target: Target, route: string, ticket: RouteTicket, meter: Meter, upstream: AbortController,
  attempts: number, outcome: Omit<Outcome, 'usage'>,
): Promise<void> {
  // A finished answer was read to its end: nothing to abort (and aborting costs more than it looks, per request).
  if (outcome.status !== 200) upstream.abort()
  if (context.span) context.span.finishReason = meter.finishReason
  report(context, route, ticket, outcome)
  // The answer began, so text reached the client: however it ended (finished, the client leaving, the upstream
  // cutting it, a timeout), what was produced is billed — the upstream's final report when the answer was read to
  // its end, else the report so far and at least the estimate of the text produced.
  const usage = meter.finalReport()
  if (usage) return context.settlement.settle(target, { ...outcome, usage }, attempts)
  return meter.estimatedUsage(context.call.request).then((estimated) => context.settlement.settle(target, { ...outcome, usage: estimated }, attempts))
}

/** Tell the circuit breaker and the metrics how an attempt went. */
function report(context: AttemptContext, route: string, ticket: RouteTicket, outcome: Omit<Outcome, 'usage'>): void {
  const reason = outcome.status === 200 ? 'ok' : outcome.errorType ?? String(outcome.status)
  context.metrics.attempts.add(1, route, reason)
  context.span?.endAttempt(outcome.status, reason)
  if (outcome.status === 200) ticket.succeeded()
  // Not the upstream's doing: the client leaving, the gateway stopping, or the gateway's own failure (a bug, or a
  // request that broke the encoder) — counting that would let one tenant's requests open a route for everyone.
  else if (reason === 'client_closed' || reason === 'shutting_down' || outcome.failure?.kind === 'internal') ticket.released()
  else if (outcome.status >= 500 || outcome.status === 429) ticket.failed(reason)
  else ticket.succeeded() // the upstream answered; it was the request that was at fault
}

function noRoute(context: AttemptContext): GatewayError {
  const model = context.call.request.model
  if (context.plan.length === 0) return new GatewayError('upstream_unavailable', `No route is available for the model '${model}'`, { code: 'no_route' })
  const waits = context.plan.map((target) => context.breaker.waitFor(routeId(target)))
  return new GatewayError('upstream_unavailable', `Every route of the model '${model}' is cooling down after failures; try again shortly.`,
    { code: 'no_healthy_route', retryAfter: Math.max(1, Math.ceil(Math.min(...waits) / 1000)) })
}
