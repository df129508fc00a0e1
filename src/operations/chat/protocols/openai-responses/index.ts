import type { Services } from '../../../../edge/services.ts'
import type { Caller } from '../../../../relay/types.ts'
import { defineEndpoint } from '../../../../protocols/shared/define-endpoint.ts'
import { defineProtocol } from '../../../../protocols/shared/define-protocol.ts'
import type { ProtocolRoutes } from '../../../../protocols/shared/route-table.ts'
import { decodePathPart } from '../../../../protocols/shared/path-id.ts'
import { openAiResponses } from './protocol.ts'
import { responseNotStored } from './stateless.ts'

const createResponse = defineProtocol(openAiResponses)

/** Retrieval and deletion need stored responses; say plainly that there are none, after checking the key. */
function refuseRetrieval(_services: Services, _key: Caller, request: Request): never {
  const path = new URL(request.url).pathname
  throw responseNotStored(decodePathPart(path.slice(path.lastIndexOf('/') + 1), 'response id'))
}

const retrieveResponse = defineEndpoint(openAiResponses, refuseRetrieval)

export const openAiResponsesRoutes: ProtocolRoutes = (services) => ({
  '/v1/responses': { POST: (request) => createResponse(services, request) },
  '/v1/responses/:id': { GET: (request) => retrieveResponse(services, request), DELETE: (request) => retrieveResponse(services, request) },
})
