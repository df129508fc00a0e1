import { newRequestId } from '../../core/ids.ts'
import { callerOf, readBody } from '../../edge/front-door.ts'
import { endHandling } from '../../edge/respond.ts'
import type { Services } from '../../edge/services.ts'
import type { Caller } from '../../relay/types.ts'
import type { ProtocolFront, ProtocolHandler } from './client-protocol.ts'
import { admitRequest } from './admit-request.ts'
import { failResponse } from './fail-response.ts'
import { noteUnauthenticated } from './note-unauthenticated.ts'

/** What an endpoint that is not relayed answers, once its caller is known and its body read (`''` for a GET). */
export type EndpointAnswer = (
  services: Services,
  caller: Caller,
  request: Request,
  text: string,
  requestId: string,
) => Response | Promise<Response>

export interface EndpointOptions {
  /** Work a tenant could repeat at will (a batch's creation, an upload) counts against the key's rpm and concurrency. */
  admitted?: boolean
  /** `stream`: the answer reads the body itself (an upload, parsed as it arrives); left unread, it is cancelled on a failure. */
  body?: 'text' | 'stream'
}

/**
 * The front half of the protocol handler (define-protocol.ts), for a protocol's endpoints that need no upstream:
 * count_tokens, the model lists, Responses retrieval, files, batches. Same order, same funnel: authenticate, read the
 * body, answer; any failure rendered in the protocol's shape, and a request refused before it had a caller noted as
 * such (a counter and a log line, as a relayed one is).
 */
export function defineEndpoint(front: ProtocolFront, answer: EndpointAnswer, options: EndpointOptions = {}): ProtocolHandler {
  return async (services, request) => {
    const requestId = newRequestId()
    let caller: Caller | undefined
    let permit: Awaited<ReturnType<typeof admitRequest>> | undefined
    try {
      // The key first, from the headers; then the body, within its deadline (define-protocol.ts, front-door.ts).
      // `admitted`: work a tenant could repeat at will (a batch's creation) counts against the key's rpm and concurrency.
      const found = callerOf(services, front.readSecret(request), request)
      caller = found instanceof Promise ? await found : found
      if (options.admitted) permit = await admitRequest(services, caller)
      const text = options.body === 'stream' ? '' : await readBody(request, services.config.limits.bodyTimeoutMs)
      const response = await answer(services, caller, request, text, requestId)
      endHandling(services.server, request, services.config.limits.writeIdleMs)
      return response
    } catch (error) {
      endHandling(services.server, request, services.config.limits.writeIdleMs)
      if (options.body === 'stream') await request.body?.cancel().catch(() => {}) // the rest of the upload is not wanted
      const response = failResponse(front, services.logger, error, request, requestId)
      if (!caller) noteUnauthenticated(services, request, requestId, response.status, error)
      return response
    } finally {
      permit?.release(0)
    }
  }
}
