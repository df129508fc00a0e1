import type { RouteHealth, RouteState } from './circuit-breaker.ts'

type Labels = Record<string, string | number>

/** A Prometheus counter with labels, kept in memory; labels are formatted at scrape time, not per request. */
class Counter {
  private readonly values = new Map<string, { labels: Labels; value: number }>()

  constructor(readonly name: string, readonly help: string) {}

  inc(labels: Labels, by = 1): void {
    const key = keyOf(labels)
    const entry = this.values.get(key)
    if (entry) entry.value += by
    else this.values.set(key, { labels: { ...labels }, value: by })
  }

  get(labels: Labels): number {
    return this.values.get(keyOf(labels))?.value ?? 0
  }

  render(): string[] {
    return [
      `# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} counter`,
      ...[...this.values.values()].map((entry) => `${this.name}${formatLabels(entry.labels)} ${entry.value}`),
    ]
  }
}

/** Label values joined: callers always pass the same label names in the same order for one counter. */
function keyOf(labels: Labels): string {
  let key = ''
  for (const name in labels) key += `${labels[name]}\u0000`
  return key
}

const routeStates: RouteState[] = ['closed', 'open', 'half-open']

/**
 * What `/metrics` shows, in the Prometheus text format: request and attempt counters, plus the gauges read at
 * scrape time (requests in flight, each route's circuit-breaker state and recent window).
 */
export class Metrics {
  readonly requests = new Counter('tollgate_requests_total', 'Requests finished, by gateway model, serving provider and HTTP status.')
  readonly attempts = new Counter('tollgate_upstream_attempts_total', 'Upstream attempts by route and result (ok, or why it failed).')
  readonly retries = new Counter('tollgate_retries_total', 'Attempts after the first, by gateway model.')
  readonly refusals = new Counter('tollgate_limit_refusals_total', 'Requests refused by a per-key limit, a budget or the balance, by reason.')

  render(gauges: { inFlight: number; routes: RouteHealth[] }): string {
    const lines = [...this.requests.render(), ...this.attempts.render(), ...this.retries.render(), ...this.refusals.render()]
    lines.push('# HELP tollgate_requests_in_flight Requests being answered now.', '# TYPE tollgate_requests_in_flight gauge', `tollgate_requests_in_flight ${gauges.inFlight}`)
    lines.push('# HELP tollgate_route_state Circuit-breaker state of each route (1 for the current state).', '# TYPE tollgate_route_state gauge')
    for (const route of gauges.routes) {
      for (const state of routeStates) lines.push(`tollgate_route_state${formatLabels({ route: route.route, state })} ${route.state === state ? 1 : 0}`)
    }
    const perRoute = (name: string, type: string, help: string, value: (route: RouteHealth) => number) => {
      lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`, ...gauges.routes.map((route) => `${name}${formatLabels({ route: route.route })} ${value(route)}`))
    }
    perRoute('tollgate_route_window_requests', 'gauge', 'Attempt outcomes in the circuit breaker\'s recent window.', (route) => route.requests)
    perRoute('tollgate_route_window_failures', 'gauge', 'Failed attempts in the circuit breaker\'s recent window.', (route) => route.failures)
    perRoute('tollgate_route_trips_total', 'counter', 'Times each route was taken out of rotation.', (route) => route.trips)
    return `${lines.join('\n')}\n`
  }
}

/** `{name="value",…}`, values escaped only when they need it. */
function formatLabels(labels: Labels): string {
  let text = ''
  for (const name in labels) {
    let value = String(labels[name])
    if (value.includes('\\') || value.includes('"') || value.includes('\n')) {
      value = value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')
    }
    text += `${text ? ',' : '{'}${name}="${value}"`
  }
  return text ? `${text}}` : ''
}
