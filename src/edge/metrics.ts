import { Elysia } from 'elysia'
import { renderBackgroundFailures } from '../core/background-failures.ts'
import { requireAdminToken } from './admin-auth.ts'
import { jsonResponse } from './respond.ts'
import type { Services } from './services.ts'

/**
 * Operator endpoints: `/metrics` in the Prometheus text format, `/status` as JSON (what `tollgate status` prints).
 * Both show counts and route health only — no keys, accounts or prompts — so by default they are open; with
 * `admin: { protect_metrics: true }` they need an admin token (read scope is enough), for a port that is reachable
 * by more than the operators. Read per request, so a reload switches it.
 */
export function metricsRoutes(services: Services) {
  return new Elysia({ name: 'operator-metrics' })
    .onBeforeHandle({ as: 'local' }, async ({ request }) => {
      if (services.config.admin.protectMetrics) await requireAdminToken(services, request, 'read')
    })
    .get(
      '/metrics',
      () =>
        new Response(
          services.relay.metrics.render({ inFlight: services.relay.inFlight, routes: services.relay.routeHealth() }) +
            sharedStateGauges(services) +
            telemetryCounters(services) +
            keyCacheGauges(services) +
            ledgerGauges(services) +
            renderBackgroundFailures(),
          {
            headers: { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' },
          },
        ),
    )
    .get('/status', () =>
      jsonResponse({
        in_flight: services.relay.inFlight,
        shared_state: sharedStateStatus(services),
        database: databaseStatus(services),
        routes: services.relay.routeHealth().map((route) => ({
          route: route.route,
          state: route.state,
          window_requests: route.requests,
          window_failures: route.failures,
          trips: route.trips,
          open_until: route.openUntil === undefined ? null : new Date(route.openUntil).toISOString(),
          last_failure: route.lastFailure ?? null,
        })),
      }),
    )
}

/**
 * Whether limits are shared: `redis` (every instance counts together), `local` (no Redis configured: this instance
 * alone, by design), or `local-fallback` (Redis configured but unreachable: each instance alone until it is back).
 */
function sharedStateStatus(services: Services): { mode: 'redis' | 'local' | 'local-fallback'; redis_outages: number } {
  const { shared } = services
  return { mode: !shared ? 'local' : shared.up ? 'redis' : 'local-fallback', redis_outages: shared?.outages ?? 0 }
}

/** Only when telemetry is configured: spans sent to the collector, and spans lost (collector down, slow or refusing). */
function telemetryCounters(services: Services): string {
  const { telemetry } = services
  if (!telemetry) return ''
  return [
    '# HELP tollgate_trace_spans_exported_total Trace spans the OTLP collector accepted.',
    '# TYPE tollgate_trace_spans_exported_total counter',
    `tollgate_trace_spans_exported_total ${telemetry.exported}`,
    '# HELP tollgate_trace_spans_dropped_total Trace spans dropped: the collector was down, slow or refused them.',
    '# TYPE tollgate_trace_spans_dropped_total counter',
    `tollgate_trace_spans_dropped_total ${telemetry.dropped}`,
    '',
  ].join('\n')
}

/** Only when Redis is configured: 1 while it answers, 0 while each instance counts alone. */
function sharedStateGauges(services: Services): string {
  const { shared } = services
  if (!shared) return ''
  return [
    '# HELP tollgate_redis_up Whether Redis answers (1) or limits, sign-in throttle and route health are per instance (0).',
    '# TYPE tollgate_redis_up gauge',
    `tollgate_redis_up ${shared.up ? 1 : 0}`,
    '# HELP tollgate_redis_outages_total Times Redis was found unreachable since start.',
    '# TYPE tollgate_redis_outages_total counter',
    `tollgate_redis_outages_total ${shared.outages}`,
    '',
  ].join('\n')
}

/** How fresh this instance's view of the keys is: a revocation made elsewhere may take this long to count here. */
function keyCacheGauges(services: Services): string {
  const { keys } = services
  return [
    '# HELP tollgate_key_cache_stale_seconds Seconds since the last key poll that succeeded (every 0.5 s while the database answers).',
    '# TYPE tollgate_key_cache_stale_seconds gauge',
    `tollgate_key_cache_stale_seconds ${keys.staleSeconds().toFixed(3)}`,
    '# HELP tollgate_key_poll_failures_total Key polls that failed since start (the database unreachable or refusing).',
    '# TYPE tollgate_key_poll_failures_total counter',
    `tollgate_key_poll_failures_total ${keys.pollFailures}`,
    '',
  ].join('\n')
}

/** Whether the database answers, and the bills waiting in the spool until it does (README "Money"). */
function ledgerGauges(services: Services): string {
  const { databaseUp, outages, losses, spool } = services.ledger.health()
  const oldest = spool?.oldestAt === undefined ? 0 : Math.max(0, (Date.now() - spool.oldestAt) / 1000)
  return [
    '# HELP tollgate_database_up Whether the database answers (1), or bills go to the spool and requests beyond the leases are refused (0).',
    '# TYPE tollgate_database_up gauge',
    `tollgate_database_up ${databaseUp ? 1 : 0}`,
    '# HELP tollgate_database_outages_total Times the database was found unreachable since start.',
    '# TYPE tollgate_database_outages_total counter',
    `tollgate_database_outages_total ${outages}`,
    '# HELP tollgate_instance_declared_gone_total Times this instance found another had declared it gone (silent past ledger.instance_timeout_ms) and released its holds.',
    '# TYPE tollgate_instance_declared_gone_total counter',
    `tollgate_instance_declared_gone_total ${losses}`,
    '# HELP tollgate_spool_entries Bills in the spool, synced to disk, waiting for the database.',
    '# TYPE tollgate_spool_entries gauge',
    `tollgate_spool_entries ${spool?.entries ?? 0}`,
    '# HELP tollgate_spool_bytes Bytes of the spool files waiting for the database.',
    '# TYPE tollgate_spool_bytes gauge',
    `tollgate_spool_bytes ${spool?.bytes ?? 0}`,
    '# HELP tollgate_spool_oldest_age_seconds Age of the oldest bill in the spool (0 when empty).',
    '# TYPE tollgate_spool_oldest_age_seconds gauge',
    `tollgate_spool_oldest_age_seconds ${oldest.toFixed(3)}`,
    '',
  ].join('\n')
}

function databaseStatus(services: Services): { up: boolean; outages: number; spooled_bills: number } {
  const { databaseUp, outages, spool } = services.ledger.health()
  return { up: databaseUp, outages, spooled_bills: spool?.entries ?? 0 }
}
