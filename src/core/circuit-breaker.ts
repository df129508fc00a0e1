import type { Logger } from './logger.ts'

export type RouteState = 'closed' | 'open' | 'half-open'

export interface BreakerOptions {
  /** Outcomes older than this no longer count. */
  windowMs: number
  /** A route is never tripped on fewer outcomes than this. */
  minRequests: number
  /** Failure share of the window at which a route trips. */
  failureRatio: number
  /** How long a tripped route is skipped before one probe may try it. */
  cooldownMs: number
}

/** One route's health as `/metrics` and `tollgate status` show it. */
export interface RouteHealth {
  route: string
  state: RouteState
  /** Outcomes in the current window. */
  requests: number
  failures: number
  /** Times the route was taken out of rotation since start. */
  trips: number
  /** While open: epoch ms at which a probe may go. */
  openUntil?: number
  lastFailure?: string
}

/** Permission for one attempt on a route; the attempt reports exactly one outcome (later reports are ignored). */
export interface RouteTicket {
  succeeded(): void
  /** `pauseMs`: the upstream asked us to stay away this long (retry-after). */
  failed(reason: string, pauseMs?: number): void
  /** Neither (the client left, or the client's own request was at fault): frees a probe slot. */
  released(): void
}

interface Route {
  state: RouteState
  outcomes: { at: number; failed: boolean }[]
  openUntil: number
  probing: boolean
  trips: number
  lastFailure?: string
}

/**
 * A circuit breaker per route. Closed: every attempt goes, and when the failure share of the recent window reaches
 * the threshold the route opens. Open: skipped until its cooldown ends. Half-open: exactly one attempt (the probe)
 * goes; its success closes the route, its failure opens it for another cooldown. State changes are logged.
 */
export class CircuitBreaker {
  private readonly routes = new Map<string, Route>()

  constructor(private readonly options: BreakerOptions, private readonly logger: Logger, private readonly clock: () => number = Date.now) {}

  /** A ticket when an attempt may go to `route` now; taking it in half-open makes this attempt the probe. */
  acquire(routeId: string): RouteTicket | undefined {
    const route = this.routeOf(routeId)
    const now = this.clock()
    if (route.state === 'open') {
      if (now < route.openUntil) return undefined
      route.state = 'half-open'
      route.probing = false
      this.logger.info({ route: routeId }, 'route half-open: the next request probes it')
    }
    if (route.state === 'half-open') {
      if (route.probing) return undefined
      route.probing = true
    }
    return this.ticket(routeId, route, route.state === 'half-open')
  }

  /** Milliseconds until `acquire` could succeed (0 if it could now; a probe in flight counts as a cooldown). */
  waitFor(routeId: string): number {
    const route = this.routes.get(routeId)
    if (!route || route.state === 'closed') return 0
    if (route.state === 'half-open') return route.probing ? this.options.cooldownMs : 0
    return Math.max(0, route.openUntil - this.clock())
  }

  snapshot(): RouteHealth[] {
    const since = this.clock() - this.options.windowMs
    return [...this.routes].map(([route, state]) => {
      const recent = state.outcomes.filter((outcome) => outcome.at > since)
      return {
        route, state: state.state, requests: recent.length, failures: recent.filter((outcome) => outcome.failed).length,
        trips: state.trips, openUntil: state.state === 'open' ? state.openUntil : undefined, lastFailure: state.lastFailure,
      }
    })
  }

  private ticket(routeId: string, route: Route, probe: boolean): RouteTicket {
    let reported = false
    const once = (report: () => void) => () => {
      if (reported) return
      reported = true
      report()
    }
    return {
      succeeded: once(() => this.succeed(routeId, route, probe)),
      failed: (reason, pauseMs) => once(() => this.fail(routeId, route, probe, reason, pauseMs))(),
      released: once(() => {
        if (probe) route.probing = false
      }),
    }
  }

  private succeed(routeId: string, route: Route, probe: boolean): void {
    if (probe) {
      route.state = 'closed'
      route.probing = false
      route.outcomes = []
      this.logger.info({ route: routeId }, 'route closed: the probe succeeded, back in rotation')
      return
    }
    this.remember(route, false)
  }

  private fail(routeId: string, route: Route, probe: boolean, reason: string, pauseMs = 0): void {
    route.lastFailure = reason
    if (probe) {
      this.open(routeId, route, this.options.cooldownMs, `probe failed: ${reason}`)
      return
    }
    if (route.state !== 'closed') return
    const recent = this.remember(route, true)
    const failures = recent.filter((outcome) => outcome.failed).length
    if (recent.length >= this.options.minRequests && failures / recent.length >= this.options.failureRatio) {
      this.open(routeId, route, this.options.cooldownMs, `${failures} of the last ${recent.length} attempts failed (${reason})`)
    } else if (pauseMs > 0) {
      // The upstream said when to come back; a longer wait than our own cooldown is left to the breaker's window.
      this.open(routeId, route, Math.min(pauseMs, this.options.cooldownMs), `upstream asked to retry after ${Math.ceil(pauseMs / 1000)} s`)
    }
  }

  private open(routeId: string, route: Route, forMs: number, why: string): void {
    route.state = 'open'
    route.probing = false
    route.openUntil = this.clock() + forMs
    route.outcomes = []
    route.trips++
    this.logger.warn({ route: routeId, cooldown_ms: forMs, reason: why }, 'route open: skipped until its cooldown ends')
  }

  private remember(route: Route, failed: boolean): Route['outcomes'] {
    const now = this.clock()
    route.outcomes.push({ at: now, failed })
    const since = now - this.options.windowMs
    let expired = 0
    while (expired < route.outcomes.length && route.outcomes[expired]!.at <= since) expired++
    if (expired) route.outcomes.splice(0, expired)
    // A busy route needs no more than this many outcomes to judge its recent health.
    if (route.outcomes.length > 1000) route.outcomes.splice(0, route.outcomes.length - 1000)
    return route.outcomes
  }

  private routeOf(routeId: string): Route {
    let route = this.routes.get(routeId)
    if (!route) {
      route = { state: 'closed', outcomes: [], openUntil: 0, probing: false, trips: 0 }
      this.routes.set(routeId, route)
    }
    return route
  }
}
