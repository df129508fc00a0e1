import type { Target } from '../core/provider.ts'
import { Attempt, type AttemptContext, type Route } from './attempt.ts'
import { clientClosed, GatewayError, toGatewayError } from '../core/errors.ts'
import type { Usage } from '../core/usage.ts'
import { reportFailure } from '../core/report-failure.ts'
import { meterEvents, readOn } from './meter-events.ts'
import type { OpenedAttempt, Outcome, RelayCall, RelayResult } from './types.ts'
import { outcomeOf } from './outcome.ts'
import { backoffMs, isRetryable } from './retry.ts'
import { billsProduced, excludesRoute } from '../core/error-codes.ts'
import { sleep } from '../core/sleep.ts'
import { routeId } from './route-planner.ts'

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
    const at = chooseTarget(context, routes, failures, excluded, attempts)
    if (!at) break
    const waitMs = chosenWaitMs
    try {
      // No wait (a first attempt) needs no controller, unless the request has already been ended.
      if (waitMs > 0 || call.scope.ended) await sleep(waitMs, call.scope.attempt().signal)
    } catch (error) {
      const failure = toGatewayError(error)
      void context.settlement.settle(last?.target, outcomeOf(failure), attempts)
      throw failure
    }
    const { route } = at
    let ticket = breaker.acquireShared(route)
    if (ticket instanceof Promise) ticket = await ticket // a shared half-open probe slot, claimed in Redis
    if (!ticket) continue
    attempts++
    // The attempt's awaits are this function's own (no async frame of its own per request): opening it, then, for a
    // whole answer, its settlement; failing to open, or a client gone while it opened, are helpers of their own.
    const attempt = new Attempt(context, at, ticket, attempts)
    let opened: OpenedAttempt | AttemptFailure
    try {
      opened = await call.operation.open(attempt, call.request)
    } catch (error) {
      opened = await openFailed(attempt, context, error)
    }
    // A request that reads on (a reasoning answer) whose client left while its answer was being opened: nobody will
    // read the answer, but it is read to its end, unsent, so that its hidden work is billed from the upstream's report.
    if (!(opened instanceof AttemptFailure) && call.scope.readsOn) opened = await readUnsent(attempt, opened)
    if (!(opened instanceof AttemptFailure)) {
      const answered = answerOf(attempt, opened, context)
      if (answered.kind === 'whole') await attempt.end(finished)
      else if (answered.kind === 'raw-stream' && opened.kind === 'raw-stream') {
        // A short stream, finished with its beginning, is ended and billed before its response (one write).
        const ending = opened.tap.endBeforeAnswer?.()
        if (ending !== undefined) answered.ended = await ending
      }
      return answered
    }
    const result = opened
    const { failure } = result
    const retry = isRetryable(failure)
    if (failure.code !== 'client_closed') {
      context.logger.warn(
        {
          request_id: call.requestId,
          route,
          attempt: attempts,
          error: failure.code ?? failure.kind,
          message: failure.message,
          detail: failure.logDetail,
          will_retry: retry && attempts < routing.maxAttempts,
        },
        'upstream attempt failed',
      )
    }
    if (!retry) {
      void context.settlement.settle(at.target, outcomeOf(failure), attempts, result.usage)
      throw failure
    }
    ;(failures ??= new Map()).set(route, failure)
    // Our credentials refused: trying this route again in this request cannot help.
    if (excludesRoute(failure)) (excluded ??= new Set()).add(route)
    last = { target: at.target, failure }
  }
  const failure = last?.failure ?? noRoute(context)
  void context.settlement.settle(last?.target, outcomeOf(failure), attempts)
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

/** Most plans are built once and shared by every request of their model (routing.ts), and so are their routes. */
const routesOfPlan = new WeakMap<readonly Target[], Route[]>()

/**
 * The next route (the plan's own Route object, shared by every request of the plan, so an attempt keeps none of its
 * own), or undefined when nothing is worth trying; how long to wait before trying it is left in `chosenWaitMs`, read
 * at once by the caller (a result object per request otherwise).
 */
function chooseTarget(
  context: AttemptContext,
  routes: Route[],
  failures: Map<string, GatewayError> | undefined,
  excluded: Set<string> | undefined,
  attempts: number,
): Route | undefined {
  const backoff = backoffMs(attempts, context.routing)
  let best: Route | undefined
  let bestWaitMs = 0
  for (const at of routes) {
    const { route } = at
    if (excluded?.has(route) || context.breaker.waitFor(route) > 0) continue
    const failure = failures?.get(route)
    if (!failure) {
      chosenWaitMs = backoff
      return at
    }
    // The same route again: honour what it asked for, unless that is longer than we are willing to keep a client.
    const waitMs = Math.max(backoff, (failure.retryAfter ?? 0) * 1000)
    if (waitMs > context.routing.maxRetryAfterS * 1000) continue
    if (!best || waitMs < bestWaitMs) {
      best = at
      bestWaitMs = waitMs
    }
  }
  chosenWaitMs = bestWaitMs
  return best
}

/** The wait chooseTarget chose with its route (the loop is synchronous up to where the caller reads it). */
let chosenWaitMs = 0

/** An attempt that failed before its answer began; `usage` is what a client that left is billed for. */
class AttemptFailure {
  constructor(
    readonly failure: GatewayError,
    readonly usage?: Usage,
  ) {}
}

const finished: Omit<Outcome, 'usage'> = Object.freeze({ status: 200 })
const clientLeft: Omit<Outcome, 'usage'> = Object.freeze({ status: 499, errorType: 'client_closed' })

/** An attempt that could not be opened: reported, and billed for what was produced when its client left. */
async function openFailed(attempt: Attempt, context: AttemptContext, error: unknown): Promise<AttemptFailure> {
  const { call } = context
  attempt.upstream.abort()
  // A bug in a provider is logged here, once: a retry elsewhere may hide it from the client, never from the log.
  const failure = call.scope.clientGone
    ? clientClosed()
    : reportFailure(context.logger, error, { request_id: call.requestId, route: attempt.route.route })
  attempt.report(outcomeOf(failure))
  // A client that left is billed for what was produced so far (the input, at least, was read upstream).
  return new AttemptFailure(failure, billsProduced(failure) ? await attempt.meter.estimatedUsage() : undefined)
}

/** Read an opened answer to its end without sending it (a whole answer is read already), and bill it. */
async function readUnsent(attempt: Attempt, opened: OpenedAttempt): Promise<AttemptFailure> {
  if (opened.kind === 'raw-stream') await opened.tap.readOn()
  else if (opened.kind === 'stream') await readOn(opened.events, attempt.meter)
  await attempt.end(clientLeft)
  return new AttemptFailure(clientClosed())
}

/**
 * An opened attempt as the relay's result: from here the answer belongs to the client, and how it ends is settled,
 * never retried. A whole answer is written in the client's wire format before it is settled (by the caller), so that
 * what is billed is what the client gets; a stream ends when it is read to its end or dropped.
 */
function answerOf(attempt: Attempt, opened: OpenedAttempt, context: AttemptContext): RelayResult {
  const { call } = context
  const { target } = attempt
  if (opened.kind === 'answer' || opened.kind === 'raw') {
    const body = opened.kind === 'raw' ? opened.body : encodeWhole(call.codec, opened.answer)
    if (typeof body !== 'string') {
      // The upstream answered well (the route is healthy), but the client gets nothing: a 500 that costs nothing.
      attempt.report(finished)
      void context.settlement.settle(target, outcomeOf(body), attempt.number)
      throw body
    }
    return { kind: 'whole', body, target }
  }
  call.codec.answerBegun?.()
  if (opened.kind === 'stream') return { kind: 'stream', events: meterEvents(opened.head, opened.events, attempt), target }
  return { kind: 'raw-stream', body: opened.tap.toStream(attempt, context.writeIdleMs), target }
}

/** The protocol's encoding of a whole answer, or the internal failure (with its cause) when encoding threw. */
function encodeWhole(codec: RelayCall['codec'], answer: unknown): string | GatewayError {
  try {
    return codec.encodeWhole(answer)
  } catch (error) {
    return new GatewayError('internal', 'The answer could not be encoded', { cause: error })
  }
}

function noRoute(context: AttemptContext): GatewayError {
  const model = context.call.request.model
  if (context.plan.length === 0)
    return new GatewayError('upstream_unavailable', `No route is available for the model '${model}'`, { code: 'no_route' })
  const waits = context.plan.map((target) => context.breaker.waitFor(routeId(target)))
  return new GatewayError(
    'upstream_unavailable',
    `Every route of the model '${model}' is cooling down after failures; try again shortly.`,
    { code: 'no_healthy_route', retryAfter: Math.max(1, Math.ceil(Math.min(...waits) / 1000)) },
  )
}
