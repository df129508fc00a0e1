import type { Logger } from '../../core/logger.ts'
import { reportFailure } from '../../core/report-failure.ts'
import type { ProtocolFront } from './client-protocol.ts'
import { routeOf } from './route-of.ts'

/**
 * Every failure of an endpoint, as its client sees it: through the one funnel (an unexpected exception is logged
 * once, with its stack, the request id and the route), then in the protocol's own error shape.
 */
export function failResponse(front: ProtocolFront, logger: Logger, error: unknown, request: Request, requestId?: string): Response {
  return front.renderError(reportFailure(logger, error, { request_id: requestId, route: routeOf(request) }), requestId)
}
