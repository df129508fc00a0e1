import type { GatewayError } from '../core/errors.ts'
import type { Outcome } from './types.ts'

/** How a failed request ended, for its usage row: the status the client saw and why. */
export function outcomeOf(failure: GatewayError): Omit<Outcome, 'usage'> {
  return { status: failure.status, errorType: failure.code ?? failure.kind, failure }
}
