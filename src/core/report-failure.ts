import { GatewayError, toGatewayError } from './errors.ts'
import type { Logger } from './logger.ts'

/** Where a failure happened: the request and its route (`POST /v1/messages`, or an upstream route id). */
export interface FailureContext {
  request_id?: string
  route?: string
}

/** Internal failures already logged: each is logged once, however many layers it passes on its way out. */
const reported = new WeakSet<GatewayError>()

/**
 * The one funnel for failures. A GatewayError the gateway meant to raise passes as it is; anything else — an
 * exception nobody foresaw, or an `internal` GatewayError — is the gateway's own fault, so it is logged once, with
 * its stack, the request id and the route, and goes on as an `internal` GatewayError that keeps it as its cause.
 * Only the error is logged, never the request's headers or body (secrets and prompts stay out of the logs).
 */
export function reportFailure(logger: Logger, error: unknown, context: FailureContext): GatewayError {
  const failure = toGatewayError(error)
  if (failure.kind !== 'internal' || reported.has(failure)) return failure
  reported.add(failure)
  const cause = failure.cause ?? failure
  logger.error({ ...context, ...describeError(cause) }, 'unexpected error')
  return failure
}

/** A thrown value as log fields: its type, message and stack (a non-Error thrown value as its string). */
function describeError(error: unknown): Record<string, unknown> {
  if (!(error instanceof Error)) return { error: String(error) }
  return { error: error.name, message: error.message, stack: error.stack }
}
