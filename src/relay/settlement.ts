import type { Hold } from '../domain/records.ts'
import type { Permit } from '../domain/limits.ts'
import type { Ledger } from '../domain/ledger.ts'
import type { Target } from '../core/provider.ts'
import type { AbortScope } from './abort-scope.ts'
import type { Logger } from '../core/logger.ts'
import type { Metrics } from './metrics.ts'
import { costOf } from '../core/pricing.ts'
import type { Outcome, RelayCall } from './types.ts'

/** The end of one client request: called once with the target that served it (if any) and how it ended. */
export type Settle = (target: Target | undefined, outcome: Outcome, attempts: number) => void

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

  /** `started`: `performance.now()` when the request reached the relay. */
  constructor(
    private readonly deps: SettlementDeps, private readonly call: RelayCall, private readonly hold: Hold,
    private readonly permit: Permit, private readonly started: number,
  ) {}

  /**
   * The request is over: `target` served it (if any route did), `outcome` says how it ended.
   *
   * Never throws, and whatever fails inside (pricing, the ledger, metrics, the log) the permit is released and the
   * relay told, in a `finally`: a request that settled wrongly must not also keep its key's concurrency slot and the
   * drain count forever. A pricing failure bills the hold (the worst case the request was admitted for), flagged
   * estimated; a ledger failure is logged with its stack.
   */
  settle(target: Target | undefined, outcome: Outcome, attempts: number): void {
    if (this.settled) return
    this.settled = true
    const { deps, call } = this
    const usage = outcome.usage
    let tokensUsed = 0
    try {
      const model = target?.model.id ?? call.request.model
      const latencyMs = Math.round(performance.now() - this.started)
      let cost = 0
      let estimated = usage?.estimated ?? false
      try {
        cost = usage && target ? costOf(usage, target.model.price) : 0
      } catch (error) {
        deps.logger.error({ request_id: call.requestId, model, err: describe(error) }, 'pricing a request failed; billing its hold')
        cost = this.hold.amount
        estimated = true
      }
      tokensUsed = usage ? usage.inputTokens + usage.outputTokens : 0
      try {
        deps.ledger.settle(this.hold, {
          requestId: call.requestId,
          accountId: call.key.accountId,
          keyId: call.key.id,
          model,
          provider: target?.provider.name ?? '',
          upstreamModel: target?.upstreamModel ?? '',
          protocol: call.protocol,
          inputTokens: usage?.inputTokens ?? 0,
          cachedInputTokens: usage?.cachedInputTokens ?? 0,
          cacheWriteTokens: usage?.cacheWriteTokens ?? 0,
          outputTokens: usage?.outputTokens ?? 0,
          reasoningTokens: usage?.reasoningTokens ?? 0,
          cost,
          status: outcome.status,
          errorType: outcome.errorType ?? null,
          latencyMs,
          stream: call.request.stream,
          estimated,
          createdAt: Date.now(),
        })
      } catch (error) {
        deps.logger.error({ request_id: call.requestId, hold: this.hold.id, err: describe(error) }, 'settling a request in the ledger failed')
      }
      deps.metrics.requests.add(1, model, target?.provider.name ?? '', outcome.status)
      if (attempts > 1) deps.metrics.retries.inc({ model: call.request.model }, attempts - 1)
      deps.logger.info({
        request_id: call.requestId, key: call.key.id, model, provider: target?.provider.name, status: outcome.status,
        error: outcome.errorType, latency_ms: latencyMs, input_tokens: usage?.inputTokens, output_tokens: usage?.outputTokens, cost,
        estimated, stream: call.request.stream, attempts,
      }, 'request')
    } catch (error) {
      deps.logger.error({ request_id: call.requestId, err: describe(error) }, 'settling a request failed')
    } finally {
      try {
        this.permit.release(tokensUsed)
      } finally {
        deps.finished(call.scope)
      }
    }
  }
}

/** An error for the log: its message and stack (a log line of `{}` helps nobody). */
function describe(error: unknown): { message: string; stack?: string } {
  return error instanceof Error ? { message: error.message, stack: error.stack } : { message: String(error) }
}
