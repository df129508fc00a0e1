import type { RoutingConfig } from '../config/types.ts'
import type { GatewayError } from '../core/errors.ts'

/**
 * May a failed attempt be tried again (on another route when there is one)? Yes for what an upstream or the network
 * did: connection failures, timeouts, 429, 5xx, garbage, our credentials refused. No for the client's own mistakes
 * (400, 404, 413, 422 — another upstream would refuse them too), for the gateway's own failures (an exception while
 * encoding the request), and for a client that left or a gateway shutting down.
 */
export function isRetryable(error: GatewayError): boolean {
  if (error.code === 'client_closed' || error.code === 'shutting_down') return false
  // The gateway's own failure happens again on any route: retrying it only multiplies it.
  if (error.kind === 'invalid_request' || error.kind === 'request_too_large' || error.kind === 'internal') return false
  return error.kind === 'upstream' || error.kind === 'upstream_unavailable' || error.kind === 'timeout' || error.kind === 'rate_limit' || error.status >= 500
}

/** Exponential backoff with full jitter: retry n (1, 2, …) waits a random time up to base × 2^(n−1), capped. */
export function backoffMs(retry: number, routing: Pick<RoutingConfig, 'backoffMs' | 'backoffMaxMs'>, random = Math.random): number {
  if (retry <= 0) return 0
  return Math.round(random() * Math.min(routing.backoffMaxMs, routing.backoffMs * 2 ** (retry - 1)))
}
