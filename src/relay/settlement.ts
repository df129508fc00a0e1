import type { Hold, UsageRecord } from '../domain/records.ts'
import type { Permit } from '../domain/limits.ts'
import type { Ledger } from '../domain/ledger.ts'
import type { Target } from '../core/provider.ts'
import type { AbortScope } from './abort-scope.ts'
import type { Logger } from '../core/logger.ts'
import type { Metrics } from './metrics.ts'
import { formatUsd } from '../core/money.ts'
import { reportFailure } from '../core/report-failure.ts'
import { routeId } from './route-planner.ts'
import type { Outcome, RelayCall } from './types.ts'
import type { Usage } from '../core/usage.ts'
import type { RequestSpan } from './tracing.ts'

const alreadySettled = Promise.resolve()

export interface SettlementDeps {
  ledger: Ledger
  logger: Logger
  metrics: Metrics
  /** Told once the request has settled (the relay's count of requests in flight). */
  finished(scope: AbortScope): void
}

/**
 * The one place a request ends: its usage row and debit (priced at the model that actually served it, which is a
 * fallback model's price after a fallback), its rate-limit permit, its metrics and its log line. Later calls are
 * ignored, so every path may call `settle` without double billing. A class rather than a closure: one object per
 * request instead of a function, its scope and a second closure for `finished`.
 */
export class Settlement {
  private settled = false

  /**
   * What the request was admitted with, each its own argument (no object per request to carry them): its hold and
   * rate-limit permit, when it reached the relay (performance.now()) and its trace span, when it is traced.
   */
  constructor(
    private readonly deps: SettlementDeps,
    private readonly call: RelayCall,
    private readonly hold: Hold,
    private readonly permit: Permit,
    private readonly started: number,
    private readonly span?: RequestSpan,
  ) {}

  /**
   * The request is over: `target` served it (if any route did), `outcome` says how it ended, `usage` what it is billed
   * for (the outcome's own by default; an ended attempt passes its meter's apart rather than copying the outcome with
   * it). Resolves once its bill is committed (the ledger's group commit): an answer's last bytes wait for it.
   *
   * Never throws, and whatever fails inside (pricing, the ledger, metrics, the log) the permit is released and the
   * relay told, in a `finally`: a request that settled wrongly must not also keep its key's concurrency slot and the
   * drain count forever. A pricing failure bills the hold (the worst case the request was admitted for), flagged
   * estimated; a ledger failure is logged with its stack.
   */
  settle(target: Target | undefined, outcome: Outcome, attempts: number, usage: Usage | undefined = outcome.usage): Promise<void> {
    if (this.settled) return alreadySettled
    this.settled = true
    let committed = alreadySettled
    const { deps, call } = this
    // Every path through the relay ends here, so an unexpected failure anywhere in it (a stream's, too) is logged.
    if (outcome.failure) reportFailure(deps.logger, outcome.failure, { request_id: call.requestId, route: target && routeId(target) })
    let tokensUsed = 0
    try {
      const model = target?.model.id ?? call.request.model
      const latencyMs = Math.round(performance.now() - this.started)
      let cost = 0
      let estimated = usage?.estimated ?? false
      try {
        cost = usage && target ? call.operation.costOf(usage, target.model.price) : 0
      } catch (error) {
        reportFailure(deps.logger, error, { request_id: call.requestId, route: 'pricing' })
        cost = this.hold.amount
        estimated = true
      }
      tokensUsed = usage ? usage.inputTokens + usage.outputTokens : 0
      try {
        const record: UsageRecord = {
          requestId: call.requestId,
          accountId: call.key.accountId,
          keyId: call.key.id,
          model,
          provider: target?.provider.name ?? '',
          upstreamModel: target?.upstreamModel ?? '',
          protocol: call.protocol,
          operation: call.operation.name,
          inputTokens: usage?.inputTokens ?? 0,
          cachedInputTokens: usage?.cachedInputTokens ?? 0,
          cacheWriteTokens: usage?.cacheWriteTokens ?? 0,
          outputTokens: usage?.outputTokens ?? 0,
          reasoningTokens: usage?.reasoningTokens ?? 0,
          units: usage?.units ?? 0,
          cost,
          status: outcome.status,
          errorType: outcome.errorType ?? null,
          latencyMs,
          stream: call.request.stream,
          estimated,
          createdAt: Date.now(),
        }
        committed = deps.ledger.settle(this.hold, record)
        call.onBilled?.(record, committed)
      } catch (error) {
        reportFailure(deps.logger, error, { request_id: call.requestId, route: 'ledger' })
      }
      deps.metrics.requests.add(1, model, target?.provider.name ?? '', outcome.status)
      if (attempts > 1) deps.metrics.retries.inc({ model: call.request.model }, attempts - 1)
      deps.logger.info(
        {
          request_id: call.requestId,
          key: call.key.id,
          operation: call.operation.name,
          model,
          provider: target?.provider.name,
          status: outcome.status,
          error: outcome.errorType,
          latency_ms: latencyMs,
          input_tokens: usage?.inputTokens,
          output_tokens: usage?.outputTokens,
          cost,
          cost_usd: formatUsd(cost),
          estimated,
          stream: call.request.stream,
          attempts,
        },
        'request',
      )
      this.span?.end(target, outcome, attempts, cost, estimated, usage)
    } catch (error) {
      reportFailure(deps.logger, error, { request_id: call.requestId, route: 'settlement' })
    } finally {
      try {
        this.permit.release(tokensUsed)
      } finally {
        deps.finished(call.scope)
      }
    }
    return committed
  }
}
