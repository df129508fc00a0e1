import type { Services } from '../../edge/services.ts'
import { gate } from './access.ts'
import { jsonHeaders, securityHeaders } from './respond.ts'
import { checkCsrf, checkSameOrigin, resolveViewer } from './viewer.ts'

const changesState = (request: Request) => request.method !== 'GET' && request.method !== 'HEAD'

/**
 * The console API's gate, used by each group of signed-in routes: the session cookie (never an API key) gives the
 * `viewer` and its `actor`; every state change must come from the console's own origin and echo the session's CSRF
 * token. Each route declares its permission (`{ permission: 'keys:write' }`), checked by `gate` (access.ts).
 */
export function signedIn(services: Services) {
  return gate(services, { ...securityHeaders, ...jsonHeaders }, async (request) => {
    const viewer = await resolveViewer(services, request)
    if (changesState(request)) {
      checkSameOrigin(request)
      checkCsrf(viewer, request)
    }
    return { viewer, actor: viewer.actor }
  })
}
