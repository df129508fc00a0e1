import type { RouteHealth, RouteState } from './route-health.ts'

type Labels = Record<string, string | number>
type Value = string | number

interface Entry {
  labels: Labels
  value: number
}

/**
 * A Prometheus counter with labels, kept in memory; labels are formatted at scrape time, not per request. Its label
 * names are fixed when it is made, and `add` takes their values in that order: a request counts by walking one
 * small Map per label, with no label object or joined key string made per request (both were garbage at once).
 */
class Counter {
  /** Nested by label value, in label order; the innermost Map holds the entries. */
  private readonly root = new Map<Value, unknown>()
  private readonly entries: Entry[] = []

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly labelNames: readonly string[],
  ) {
    // `add` takes up to three values positionally; a counter with more labels needs another level here first.
    if (labelNames.length < 1 || labelNames.length > 3) throw new Error(`counter ${name}: 1 to 3 labels, not ${labelNames.length}`)
  }

  /** Add `by` to the series of these label values, given in the order of the counter's label names. */
  add(by: number, a: Value, b?: Value, c?: Value): void {
    this.entry(a, b, c, true).value += by
  }

  inc(labels: Labels, by = 1): void {
    const [a, b, c] = this.labelNames.map((name) => labels[name]!)
    this.add(by, a!, b, c)
  }

  get(labels: Labels): number {
    const [a, b, c] = this.labelNames.map((name) => labels[name]!)
    return this.entry(a!, b, c, false)?.value ?? 0
  }

  render(): string[] {
    return [
      `# HELP ${this.name} ${this.help}`,
      `# TYPE ${this.name} counter`,
      ...this.entries.map((entry) => `${this.name}${formatLabels(entry.labels)} ${entry.value}`),
    ]
  }

  private entry(a: Value, b: Value | undefined, c: Value | undefined, create: true): Entry
  private entry(a: Value, b: Value | undefined, c: Value | undefined, create: false): Entry | undefined
  private entry(a: Value, b: Value | undefined, c: Value | undefined, create: boolean): Entry | undefined {
    const depth = this.labelNames.length
    let level: Map<Value, unknown> | undefined = this.root
    if (depth > 1) level = this.below(level, a, create)
    if (depth > 2 && level) level = this.below(level, b!, create)
    if (!level) return undefined
    const last = depth === 1 ? a : depth === 2 ? b! : c!
    let entry = level.get(last) as Entry | undefined
    if (!entry && create) {
      const labels: Labels = {}
      const values = [a, b, c]
      this.labelNames.forEach((name, index) => (labels[name] = values[index]!))
      entry = { labels, value: 0 }
      level.set(last, entry)
      this.entries.push(entry)
    }
    return entry
  }

  private below(level: Map<Value, unknown>, value: Value, create: boolean): Map<Value, unknown> | undefined {
    let next = level.get(value) as Map<Value, unknown> | undefined
    if (!next && create) level.set(value, (next = new Map()))
    return next
  }
}

const routeStates: RouteState[] = ['closed', 'open', 'half-open']

/**
 * What `/metrics` shows, in the Prometheus text format: request and attempt counters, plus the gauges read at
 * scrape time (requests in flight, each route's circuit-breaker state and recent window).
 */
export class Metrics {
  readonly requests = new Counter('tollgate_requests_total', 'Requests finished, by gateway model, serving provider and HTTP status.', [
    'model',
    'provider',
    'status',
  ])
  readonly attempts = new Counter('tollgate_upstream_attempts_total', 'Upstream attempts by route and result (ok, or why it failed).', [
    'route',
    'result',
  ])
  readonly retries = new Counter('tollgate_retries_total', 'Attempts after the first, by gateway model.', ['model'])
  readonly refusals = new Counter(
    'tollgate_limit_refusals_total',
    'Requests refused by a per-key limit, a budget or the balance, by reason.',
    ['reason'],
  )
  readonly refused = new Counter(
    'tollgate_refused_requests_total',
    'Requests answered with an error before any upstream was tried (no valid key, bad input, limits, balance), by HTTP status and reason.',
    ['status', 'reason'],
  )

  render(gauges: { inFlight: number; routes: RouteHealth[] }): string {
    const lines = [
      ...this.requests.render(),
      ...this.attempts.render(),
      ...this.retries.render(),
      ...this.refusals.render(),
      ...this.refused.render(),
    ]
    lines.push(
      '# HELP tollgate_requests_in_flight Requests being answered now.',
      '# TYPE tollgate_requests_in_flight gauge',
      `tollgate_requests_in_flight ${gauges.inFlight}`,
    )
    lines.push(
      '# HELP tollgate_route_state Circuit-breaker state of each route (1 for the current state).',
      '# TYPE tollgate_route_state gauge',
    )
    for (const route of gauges.routes) {
      for (const state of routeStates)
        lines.push(`tollgate_route_state${formatLabels({ route: route.route, state })} ${route.state === state ? 1 : 0}`)
    }
    const perRoute = (name: string, type: string, help: string, value: (route: RouteHealth) => number) => {
      lines.push(
        `# HELP ${name} ${help}`,
        `# TYPE ${name} ${type}`,
        ...gauges.routes.map((route) => `${name}${formatLabels({ route: route.route })} ${value(route)}`),
      )
    }
    perRoute(
      'tollgate_route_window_requests',
      'gauge',
      "Attempt outcomes in the circuit breaker's recent window.",
      (route) => route.requests,
    )
    perRoute(
      'tollgate_route_window_failures',
      'gauge',
      "Failed attempts in the circuit breaker's recent window.",
      (route) => route.failures,
    )
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
