/** Whether a failure is retried is the error table's to say (core/error-codes.ts). */
export { isRetryable } from '../core/error-codes.ts'
import type { RoutingConfig } from '../config/types.ts'

/** Exponential backoff with full jitter: retry n (1, 2, …) waits a random time up to base × 2^(n−1), capped. */
export function backoffMs(retry: number, routing: Pick<RoutingConfig, 'backoffMs' | 'backoffMaxMs'>, random = Math.random): number {
  if (retry <= 0) return 0
  return Math.round(random() * Math.min(routing.backoffMaxMs, routing.backoffMs * 2 ** (retry - 1)))
}
