import { GatewayError } from '../core/errors.ts'

/**
 * A request field the target upstream has no way to honour, and that the gateway cannot emulate: a 400 naming the
 * field (in every protocol's spelling) and the upstream kind, raised where the target is known. It is the request's
 * fault for this route, so it is neither retried nor counted against the route's health (relay/retry.ts, run-attempts.ts).
 */
export function refuseField(field: string, upstream: string, why: string): GatewayError {
  return new GatewayError(
    'invalid_request',
    `'${field}' cannot be sent to this model: its upstream (${upstream}) ${why}. See docs/conformance.md.`,
    {
      param: field,
      code: 'unsupported_by_upstream',
    },
  )
}
