import { newRequestId } from '../../core/ids.ts'
import { knownCaller, lookUpCaller } from '../../edge/auth.ts'
import type { Services } from '../../edge/services.ts'
import type { Caller } from '../../relay/types.ts'
import type { ProtocolFront, ProtocolHandler } from './client-protocol.ts'
import { failResponse } from './fail-response.ts'
import { readBody } from './read-body.ts'

/** What an endpoint that is not relayed answers, once its caller is known and its body read (`''` for a GET). */
export type EndpointAnswer = (services: Services, caller: Caller, request: Request, text: string, requestId: string) => Response | Promise<Response>

/**
 * The front half of the protocol handler (define-protocol.ts), for a protocol's endpoints that need no upstream:
 * count_tokens, the model lists, Responses retrieval. Same order, same funnel: read the body, authenticate, answer;
 * any failure rendered in the protocol's shape.
 */
export function defineEndpoint(front: ProtocolFront, answer: EndpointAnswer): ProtocolHandler {
  return async (services, request) => {
    const requestId = newRequestId()
    try {
      // Read the body before anything can fail, so a keep-alive connection is left clean for the next request.
      const text = await readBody(request)
      const secret = front.readSecret(request)
    // A key in memory is answered at once: only an unknown secret costs a promise (a store lookup).
    const caller = knownCaller(services.keys, secret) ?? await lookUpCaller(services.keys, secret)
      return await answer(services, caller, request, text, requestId)
    } catch (error) {
      return failResponse(front, services.logger, error, request, requestId)
    }
  }
}
