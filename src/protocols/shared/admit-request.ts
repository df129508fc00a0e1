import { GatewayError } from '../../core/errors.ts'
import type { Services } from '../../edge/services.ts'
import type { Caller } from '../../relay/types.ts'

/**
 * An upload or a batch's creation is a request of its caller's, under the key's rpm and concurrency like a token
 * count (relay.admitCount): unbounded, a $0 key with `rpm: 1` uploaded 10 × 20 MiB and made batches freely. Admitted
 * from the headers, before the body is read, so a refusal closes the connection (its unread body would otherwise be
 * read as the next request). The caller releases the permit once the request is answered.
 */
export async function admitRequest(services: Services, caller: Caller) {
  try {
    return await services.relay.admitCount(caller)
  } catch (error) {
    if (!(error instanceof GatewayError)) throw error
    throw new GatewayError(error.kind, error.message, {
      code: error.code,
      param: error.param,
      status: error.status,
      retryAfter: error.retryAfter,
      rateLimit: error.rateLimit,
      headers: { ...error.headers, connection: 'close' },
    })
  }
}
