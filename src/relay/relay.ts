import type { Config, ModelConfig } from '../config/types.ts'
import type { Hold, KeyRecord } from '../domain/records.ts'
import { keyAllowsModel } from '../domain/keys.ts'
import type { Ledger } from '../domain/ledger.ts'
import { KeyLimiter, type LimitedKey, type Limiter, type Permit, projectLimits, withProject } from '../domain/limits.ts'
import type { Provider, Target } from '../core/provider.ts'
import type { Operation, RelayCall, RelayResult } from './types.ts'
import type { AbortScope } from './abort-scope.ts'
import { runAttempts } from './run-attempts.ts'
import { type BreakerSharing, CircuitBreaker } from './circuit-breaker.ts'
import { type RouteHealth } from './route-health.ts'
import { GatewayError, toGatewayError } from '../core/errors.ts'
import { reportFailure } from '../core/report-failure.ts'
import type { Logger } from '../core/logger.ts'
import { Metrics } from './metrics.ts'
import { outcomeOf } from './outcome.ts'
import { routeId } from './route-planner.ts'
import { type Catalog, catalogOf, worstCaseOf, wrongKind } from './catalog.ts'
import { Settlement, type SettlementDeps } from './settlement.ts'
import { recordRefusal, type Refused } from './refusal.ts'
import type { RequestSpan, Tracer } from './tracing.ts'

export interface RelayDeps {
  config: Config
  providers: Map<string, Provider>
  ledger: Ledger
  logger: Logger
  /** Where key limits are counted: this process by default, every instance with Redis (db/redis/limiter.ts). */
  limiter?: Limiter
  /**
   * A second relay over the same upstreams (batch items, priced by their own config): it shares this one's key
   * limits, circuit breaker and metrics, so batch work and live traffic count against the same limits and health.
   */
  shareWith?: Relay
  /**
   * Write a usage row for each request refused before its hold (default true). The batch relay says false: a batch
   * item's refusal is in its task's results, and an item deferred under a rate limit would leave a row per retry.
   */
  recordRefusals?: boolean
  /** Traces requests when telemetry is configured (relay/tracing.ts); absent, no span is made. */
  tracer?: Tracer
  /** With Redis: where the breaker tells its own route changes and claims half-open probes (db/redis/route-health.ts). */
  sharedRoutes?: Pick<BreakerSharing, 'onChange' | 'probeSlot'>
}

/**
 * The path of every request, whatever its protocol and operation: resolve the model, admit it under the key's
 * limits, hold its worst-case cost, then try the routes (run-attempts.ts) and meter what comes back. What differs
 * between operations (the hold rule, the upstream call, the meter, the price) comes with the call (`Operation`).
 * Also counts requests in flight, so a shutdown can wait for them and, past its deadline, end them — each still
 * settles, so no usage is lost.
 */
export class Relay {
  readonly breaker: CircuitBreaker
  readonly metrics: Metrics
  readonly tracer: Tracer | undefined
  private readonly limiter: Limiter
  /** The models, providers and routes requests are planned with: replaced whole by a reload (`reconfigure`). */
  private catalog: Catalog
  /** The scope of every request in flight, so a shutdown past its deadline can end them. */
  private readonly active = new Set<AbortScope>()
  private stopping: GatewayError | undefined
  private idleWaiters: (() => void)[] = []
  /** What every request's Settlement shares: built once, not per request. */
  private readonly settlementDeps: SettlementDeps

  constructor(private readonly deps: RelayDeps) {
    this.catalog = catalogOf(deps.config, deps.providers)
    const { routing } = deps.config
    this.metrics = deps.shareWith?.metrics ?? new Metrics()
    this.tracer = deps.tracer ?? deps.shareWith?.tracer
    this.limiter = deps.shareWith?.limiter ?? deps.limiter ?? new KeyLimiter()
    this.breaker =
      deps.shareWith?.breaker ??
      new CircuitBreaker(
        {
          windowMs: routing.windowS * 1000,
          minRequests: routing.minRequests,
          failureRatio: routing.failureRatio,
          cooldownMs: routing.cooldownS * 1000,
        },
        deps.logger,
        Date.now,
        {
          ...deps.sharedRoutes,
          // Another instance's route changes apply only to routes this one has (the live relay's, as reloaded).
          knowsRoute: (id) => this.catalog.planner.allTargets().some((target) => routeId(target) === id),
        },
      )
    this.settlementDeps = { ledger: deps.ledger, logger: deps.logger, metrics: this.metrics, finished: (scope) => this.finished(scope) }
  }

  /**
   * A reloaded config: new requests are planned with its models, prices, routes and providers at once; requests in
   * flight keep the plan they started with (their targets hold the old configs) and end as they would have. The
   * circuit breaker keeps its state and its window settings (a restart changes those).
   */
  reconfigure(config: Config, providers: Map<string, Provider>): void {
    this.catalog = catalogOf(config, providers)
  }

  /** Every configured model's id, as the config stands now (a reload replaces them). */
  modelIds(): string[] {
    return this.catalog.config.models.map((model) => model.id)
  }

  /** The models a key may call, in config order. */
  modelsFor(key: KeyRecord): ModelConfig[] {
    return this.catalog.config.models.filter((model) => keyAllowsModel(key, model.id))
  }

  /**
   * The model a request names, if it exists and the key may use it; with `operation`, also only if the model serves
   * that operation (its `kind:`): a 400 naming the model and what it serves otherwise.
   */
  resolveModel(key: KeyRecord, modelId: string, operation?: Operation): ModelConfig {
    const model = this.catalog.models.get(modelId)
    if (!model) throw new GatewayError('not_found', `The model '${modelId}' does not exist`, { code: 'model_not_found', param: 'model' })
    if (!keyAllowsModel(key, modelId)) {
      throw new GatewayError('permission', `This API key is not permitted to use the model '${modelId}'`, {
        code: 'model_not_permitted',
        param: 'model',
      })
    }
    if (operation && model.kind !== operation.modelKind) throw wrongKind(model, operation)
    return model
  }

  async run(call: RelayCall): Promise<RelayResult> {
    const started = performance.now()
    const span = this.tracer?.start(call, started)
    const { operation, request } = call
    let plan: readonly Target[]
    let permit: Permit
    let worstCase: number
    try {
      const model = this.resolveModel(call.key, request.model, operation)
      if (operation.readsOnAfterClientLeaves(model, request)) call.scope.readOnAfterClientLeaves()
      plan = this.catalog.planner.plan(model)
      operation.checkPlan?.(request, plan)
      worstCase = worstCaseOf(call, plan)
      // In memory the permit comes at once; only limits shared through Redis cost a round trip (and a promise).
      // Only a token limit needs the input's estimate: other keys skip the walk.
      const project = call.key.project ? projectLimits(call.key) : undefined
      const tokens = call.key.tpm === null && project?.tpm == null ? 0 : operation.admittedTokens(request)
      permit = this.admit(call.key, tokens) ?? (await this.admitLater(call.key, tokens))
      if (project) permit = await this.admitProject(permit, project, tokens)
    } catch (error) {
      call.scope.close() // refused before it began: nothing to watch
      span?.end(undefined, outcomeOf(toGatewayError(error)), 0, 0, false)
      this.refused(call, started, error)
      throw error
    }
    this.active.add(call.scope)
    if (this.stopping) call.scope.end(this.stopping)
    // A lease with room answers at once; only a lease that must grow costs a promise (the hot path's one trick).
    const hold =
      this.deps.ledger.holdFromLease(call.key.accountId, call.key.id, worstCase, call.key.budget, call.key) ??
      (await this.placeHold(call, worstCase, permit, started, span))
    const settlement = new Settlement(this.settlementDeps, call, hold, permit, started, span)
    try {
      const result = await runAttempts({
        call,
        plan,
        settlement,
        span,
        providers: this.catalog.providers,
        breaker: this.breaker,
        metrics: this.metrics,
        logger: this.deps.logger,
        routing: this.catalog.config.routing,
        writeIdleMs: this.catalog.config.limits.writeIdleMs,
      })
      result.rateLimit = permit.state // each result is a fresh object of this request's
      return result
    } catch (error) {
      // Every known path has settled already (settling twice is a no-op); this only catches a bug, so that its hold,
      // its permit and the drain count are still given back.
      const failure = toGatewayError(error)
      void settlement.settle(undefined, outcomeOf(failure), 0)
      throw failure
    }
  }

  /** Every configured route with its circuit-breaker health (routes not used yet are closed and empty). */
  routeHealth(): RouteHealth[] {
    const health = new Map(this.breaker.snapshot().map((route) => [route.route, route]))
    for (const target of this.catalog.planner.allTargets()) {
      const route = routeId(target)
      if (!health.has(route)) health.set(route, { route, state: 'closed', requests: 0, failures: 0, trips: 0 })
    }
    return [...health.values()]
  }

  get inFlight(): number {
    return this.active.size
  }

  /** Resolves once no request is in flight. */
  idle(): Promise<void> {
    if (this.active.size === 0) return Promise.resolve()
    return new Promise((resolve) => this.idleWaiters.push(resolve))
  }

  /** The drain deadline passed: end every request in flight (each still settles and writes its usage). */
  abortInFlight(): void {
    this.stopping = new GatewayError('upstream_unavailable', 'The gateway is shutting down', { code: 'shutting_down' })
    for (const scope of this.active) scope.end(this.stopping)
  }

  /**
   * A token count (count_tokens, :countTokens) under the key's request rate and concurrency: it costs no money, but
   * it costs CPU, so it is a request like any other; its tokens are not counted against the key's tpm. The caller
   * releases the permit when the count is done.
   */
  async admitCount(key: KeyRecord): Promise<Permit> {
    const counted: LimitedKey = { id: key.id, rpm: key.rpm, tpm: null, concurrency: key.concurrency }
    return this.admit(counted, 0) ?? (await this.admitLater(counted, 0))
  }

  /**
   * A key of a project: the project's own limits after the key's. A method rather than a closure in `run`, whose
   * variables the closure would make a scope object on every request, with or without a project.
   */
  private admitProject(permit: Permit, project: LimitedKey, tokens: number): Promise<Permit> {
    return withProject(permit, async () => this.admit(project, tokens) ?? (await this.admitLater(project, tokens)))
  }

  /** Per-key rate limits, counted before any money is held; undefined when only `admitLater` can tell. */
  private admit(key: LimitedKey, tokens: number): Permit | undefined {
    try {
      return this.limiter.admitNow(key, tokens)
    } catch (error) {
      this.metrics.refusals.inc({ reason: (error as GatewayError).code ?? 'rate_limit' })
      throw error
    }
  }

  private async admitLater(key: LimitedKey, tokens: number): Promise<Permit> {
    try {
      return await this.limiter.admitLater(key, tokens)
    } catch (error) {
      this.metrics.refusals.inc({ reason: (error as GatewayError).code ?? 'rate_limit' })
      throw error
    }
  }

  private async placeHold(call: RelayCall, amount: number, permit: Permit, started: number, span: RequestSpan | undefined): Promise<Hold> {
    try {
      return await this.deps.ledger.placeHold(call.key.accountId, call.key.id, amount, call.key.budget, call.key)
    } catch (error) {
      span?.end(undefined, outcomeOf(toGatewayError(error)), 0, 0, false)
      return this.refuseHold(call, permit, error, started)
    }
  }

  /** No hold, no request: give back the permit and the drain count, count and record the refusal, pass the error on. */
  private refuseHold(call: RelayCall, permit: Permit, error: unknown, started: number): never {
    permit.cancel()
    this.finished(call.scope)
    this.metrics.refusals.inc({ reason: (error as GatewayError).code ?? 'hold_failed' })
    this.refused(call, started, error)
    throw error
  }

  /**
   * A request with a key refused before its hold (here, or by its protocol before it reached the relay): its usage
   * row (cost 0), counter and log line (refusal.ts). Never throws: the refusal itself is what the client gets.
   */
  recordRefusal(refused: Refused, error: unknown): void {
    if (this.deps.recordRefusals === false) return
    try {
      recordRefusal({ ledger: this.deps.ledger, metrics: this.metrics, logger: this.deps.logger }, refused, toGatewayError(error))
    } catch (failure) {
      reportFailure(this.deps.logger, failure, { request_id: refused.requestId, route: 'refusal' })
    }
  }

  private refused(call: RelayCall, started: number, error: unknown): void {
    this.recordRefusal(
      {
        key: call.key,
        protocol: call.protocol,
        operation: call.operation.name,
        requestId: call.requestId,
        model: call.request.model,
        stream: call.request.stream,
        started,
      },
      error,
    )
  }

  private finished(scope: AbortScope): void {
    scope.close()
    this.active.delete(scope)
    if (this.active.size === 0) for (const resolve of this.idleWaiters.splice(0)) resolve()
  }
}
