import { Elysia } from 'elysia'
import { adminApiRoutes, apiDocs, consoleError, consoleRoutes } from './console/index.ts'
import { GatewayError } from './core/errors.ts'
import { reportFailure } from './core/report-failure.ts'
import { renderErrorFor } from './protocols/shared/client-shape.ts'
import { protocolRoutes } from './protocols/routes.ts'
import { taskViewRoutes } from './protocols/tasks-view.ts'
import { routeOf } from './protocols/shared/route-of.ts'
import { bodyTooLarge, maxBodyBytes } from './edge/body-size.ts'
import type { RouteTable } from './protocols/shared/route-table.ts'
import { metricsRoutes } from './edge/metrics.ts'
import type { Services } from './edge/services.ts'

/**
 * Mount every protocol and the operator routes; one place decides what an unknown path or a crash looks like.
 * `routes` is the client-protocol table (protocols/routes.ts): the same one Bun.serve routes natively (gateway.ts),
 * so a request answers alike whichever router it reaches.
 */
export function createApp(services: Services, routes: RouteTable = protocolRoutes(services)) {
  return (
    new Elysia()
      .onError(({ code, error, request }) => {
        const inConsole = consoleError(services, request, error)
        if (inConsole) return inConsole
        // Gemini and Anthropic clients parse only their vendor's error shape; everything else gets OpenAI's.
        const render = (failure: GatewayError) => renderErrorFor(request, failure)
        if (code === 'NOT_FOUND') return render(new GatewayError('not_found', 'Unknown path', { code: 'unknown_path' }))
        if (code === 'PARSE' || code === 'VALIDATION') return render(new GatewayError('invalid_request', String((error as Error).message)))
        // Anything else is unexpected: logged once, with its stack, through the same funnel as the protocol handlers.
        return render(reportFailure(services.logger, error, { route: routeOf(request) }))
      })
      // A body declared larger than the gateway takes is refused before it is read, in the caller's shape (edge/front-door.ts readBody).
      .onRequest(({ request }) => {
        const declared = request.headers.get('content-length')
        if (declared !== null && Number(declared) > maxBodyBytes) throw bodyTooLarge()
      })
      .get('/healthz', () => ({ status: 'ok' }))
      .head('/', () => new Response(null, { status: 200 }))
      .use(mountRoutes(routes))
      .use(taskViewRoutes(services))
      .use(consoleRoutes(services))
      .use(adminApiRoutes(services))
      .use(apiDocs())
      .use(metricsRoutes(services))
  )
}

/** The protocol route table as an Elysia plugin; bodies are left unread, each handler reads its own. */
function mountRoutes(routes: RouteTable) {
  const plugin = new Elysia({ name: 'protocols' })
  for (const [path, methods] of Object.entries(routes)) {
    for (const [method, handler] of Object.entries(methods))
      plugin.route(method, path, ({ request }) => handler(request), { parse: 'none' })
  }
  return plugin
}
