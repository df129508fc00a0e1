import type { GatewayError } from '../core/errors.ts'
import type { Logger } from '../core/logger.ts'
import type { Ledger } from '../domain/ledger.ts'
import type { UsageRecord } from '../domain/records.ts'
import type { Metrics } from './metrics.ts'
import type { Caller } from './types.ts'

/** A request answered with an error before any money was held for it: what its usage row and log line say. */
export interface Refused {
  key: Caller
  protocol: string
  /** The operation the client asked for (`chat`, `embeddings`), known from the endpoint before the body is read. */
  operation: string
  requestId: string
  /** The model the client named, when its body got that far ('' before it was decoded). */
  model: string
  stream: boolean
  /** `performance.now()` when the request arrived. */
  started: number
}

/**
 * The longest model name a refusal row or a trace span keeps: an unknown model is the client's own text, bounded only
 * by the body size, and neither a usage row nor a span must carry megabytes of it.
 */
const modelLength = 128

export function boundModel(model: string): string {
  return model.length > modelLength ? model.slice(0, modelLength) : model
}

/**
 * Make a refused request visible: a usage row (its status and error code, cost 0, no balance touched: ledger.ts
 * `recordRefusal`, written with the next batch), a counter and a log line. Only for a caller with a key: a request
 * without one has no account to charge a row to (see noteUnauthenticated in protocols/shared).
 */
export function recordRefusal(deps: { ledger: Ledger; metrics: Metrics; logger: Logger }, refused: Refused, failure: GatewayError): void {
  const errorType = failure.code ?? failure.kind
  const latencyMs = Math.round(performance.now() - refused.started)
  const model = boundModel(refused.model)
  const usage: UsageRecord = {
    requestId: refused.requestId,
    accountId: refused.key.accountId,
    keyId: refused.key.id,
    model,
    provider: '',
    upstreamModel: '',
    protocol: refused.protocol,
    operation: refused.operation,
    inputTokens: 0,
    cachedInputTokens: 0,
    cacheWriteTokens: 0,
    outputTokens: 0,
    reasoningTokens: 0,
    units: 0,
    cost: 0,
    status: failure.status,
    errorType,
    latencyMs,
    stream: refused.stream,
    estimated: false,
    createdAt: Date.now(),
  }
  deps.ledger.recordRefusal(usage)
  deps.metrics.refused.add(1, failure.status, errorType)
  deps.logger.info(
    {
      request_id: refused.requestId,
      key: refused.key.id,
      operation: refused.operation,
      model,
      status: failure.status,
      error: errorType,
      latency_ms: latencyMs,
      cost: 0,
      stream: refused.stream,
    },
    'request',
  )
}
