import { Elysia } from 'elysia'
import { jsonResponse } from './respond.ts'
import type { Services } from './services.ts'

/**
 * Operator endpoints: `/metrics` in the Prometheus text format, `/status` as JSON (what `tollgate status` prints).
 * Both show counts and route health only — no keys, accounts or prompts — so they are not behind an API key;
 * keep the port off the public internet or filter these paths at the proxy if route names are sensitive.
 */
export function metricsRoutes(services: Services) {
  return new Elysia({ name: 'operator-metrics' })
    .get('/metrics', () => new Response(services.relay.metrics.render({ inFlight: services.relay.inFlight, routes: services.relay.routeHealth() }), {
      headers: { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' },
    }))
    .get('/status', () => jsonResponse({
      in_flight: services.relay.inFlight,
      routes: services.relay.routeHealth().map((route) => ({
        route: route.route, state: route.state, window_requests: route.requests, window_failures: route.failures, trips: route.trips,
        open_until: route.openUntil === undefined ? null : new Date(route.openUntil).toISOString(), last_failure: route.lastFailure ?? null,
      })),
    }))
}
