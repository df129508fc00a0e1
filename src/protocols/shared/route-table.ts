import type { Services } from '../../edge/services.ts'

export type RouteMethod = 'GET' | 'HEAD' | 'POST' | 'DELETE'
export type RouteHandler = (request: Request) => Response | Promise<Response>

/**
 * Every client-protocol route, path → method → handler, in the shape Bun.serve's `routes` takes; app.ts mounts the
 * same table in Elysia, so each route is registered in one place (routes.ts) and both routers serve the same handler.
 * Handlers read what they need from the request itself (path, query), never from a router's params.
 */
export type RouteTable = Record<string, Partial<Record<RouteMethod, RouteHandler>>>

/** A protocol's share of the table, with the services bound. */
export type ProtocolRoutes = (services: Services) => RouteTable

/** Several protocols' tables as one; two that serve the same path (`/v1/models/*`) must not claim the same method. */
export function mergeRoutes(tables: RouteTable[]): RouteTable {
  const merged: RouteTable = {}
  for (const table of tables) {
    for (const [path, methods] of Object.entries(table)) {
      const into = (merged[path] ??= {})
      for (const method of Object.keys(methods) as RouteMethod[]) {
        if (into[method]) throw new Error(`${method} ${path} is registered twice`)
        into[method] = methods[method]
      }
    }
  }
  return merged
}
