import { newRequestId } from '../../core/ids.ts'
import { knownRequestCaller, lookUpRequestCaller, readBody } from '../../edge/front-door.ts'
import { endHandling } from '../../edge/respond.ts'
import type { Services } from '../../edge/services.ts'
import type { Caller } from '../../relay/types.ts'
import type { ProtocolFront, ProtocolHandler } from './client-protocol.ts'
import { admitRequest } from './admit-request.ts'
import { failResponse } from './fail-response.ts'

/** What an endpoint that is not relayed answers, once its caller is known and its body read (`''` for a GET). */
export type EndpointAnswer = (services: Services, caller: Caller, request: Request, text: string, requestId: string) => Response | Promise<Response>

/**
 * The front half of the protocol handler (define-protocol.ts), for a protocol's endpoints that need no upstream:
 * count_tokens, the model lists, Responses retrieval. Same order, same funnel: authenticate, read the body, answer;
 * any failure rendered in the protocol's shape.
 */
export function defineEndpoint(front: ProtocolFront, answer: EndpointAnswer, options: { admitted?: boolean } = {}): ProtocolHandler {
  return async (services, request) => {
    const requestId = newRequestId()
    let permit: Awaited<ReturnType<typeof admitRequest>> | undefined
    try {
      // The key first, from the headers; then the body, within its deadline (define-protocol.ts, front-door.ts).
      const secret = front.readSecret(request)
      const caller = knownRequestCaller(services, secret, request) ?? await lookUpRequestCaller(services, secret, request)
      // `admitted`: work a tenant could repeat at will (a batch's creation) counts against the key's rpm and concurrency.
      if (options.admitted) permit = await admitRequest(services, caller)
      const text = await readBody(request, services.config.limits.bodyTimeoutMs)
      const response = await answer(services, caller, request, text, requestId)
      endHandling(services.server, request, services.config.limits.writeIdleMs)
      return response
    } catch (error) {
      endHandling(services.server, request, services.config.limits.writeIdleMs)
      return failResponse(front, services.logger, error, request, requestId)
    } finally {
      permit?.release(0)
    }
  }
}
