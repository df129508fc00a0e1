import { toGatewayError } from '../../core/errors.ts'
import { clientAddress } from '../../edge/client-address.ts'
import type { Services } from '../../edge/services.ts'
import { routeOf } from './route-of.ts'

/**
 * A request refused before it had a valid key (401, 429 for too many unknown keys from one address, or 403 for a key
 * used from an address its `allowed_ips` leave out, whose id the log's `detail` names): no account
 * to charge a usage row to — and rows for unknown keys would let anyone fill the database — so only a counter and a
 * log line with the reason and the client's address. Never the secret, nor any part of it.
 */
export function noteUnauthenticated(services: Services, request: Request, requestId: string, status: number, error: unknown): void {
  const failure = toGatewayError(error)
  const reason = failure.code ?? failure.kind
  services.relay.metrics.refused.add(1, status, reason)
  services.logger.info(
    {
      request_id: requestId,
      route: routeOf(request),
      status,
      error: reason,
      client: clientAddress(request, services.server, services.config.trustedProxies),
      ...(failure.logDetail !== undefined && { detail: failure.logDetail }),
    },
    'request',
  )
}
