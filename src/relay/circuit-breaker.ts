import { BackgroundJob } from '../core/background-failures.ts'
import type { Logger } from '../core/logger.ts'

import {
  type BreakerOptions,
  type ProbeSlot,
  readRouteChange,
  type RouteChange,
  type RouteHealth,
  type RouteTicket,
} from './route-health.ts'
import { newSlices, type Outcomes, type Route, slices, Ticket } from './breaker-route.ts'

/** What a breaker shares with other instances (Redis), given when it is made; none when state is this instance's alone. */
export interface BreakerSharing {
  onChange?: (change: RouteChange) => void
  probeSlot?: ProbeSlot
  knowsRoute?: (routeId: string) => boolean
}

/**
 * A circuit breaker per route. Closed: every attempt goes, and when the failure share of the recent window reaches
 * the threshold the route opens. Open: skipped until its cooldown ends. Half-open: exactly one attempt (the probe)
 * goes; its success closes the route, its failure opens it for another cooldown. State changes are logged.
 */
export class CircuitBreaker {
  private readonly routes = new Map<string, Route>()
  private readonly sliceMs: number
  /** What a Ticket reports to: the breaker's private outcome handlers, bound once per breaker, not per request. */
  private readonly outcomes: Outcomes = {
    succeed: (routeId, route, probe) => this.succeed(routeId, route, probe),
    fail: (routeId, route, probe, reason, pauseMs) => this.fail(routeId, route, probe, reason, pauseMs),
    release: (routeId, route) => this.release(routeId, route),
  }

  /** Told of every change this breaker decides on itself (not of those it adopts): given when state is shared. */
  onChange: ((change: RouteChange) => void) | undefined

  /** Given when state is shared: the half-open probe slot is claimed there, so one instance probes for all. */
  private readonly probeSlot: ProbeSlot | undefined

  /** Whether a route is one of this instance's (the relay's): changes to any other are not adopted. */
  private readonly knowsRoute: (routeId: string) => boolean

  constructor(
    private readonly options: BreakerOptions,
    private readonly logger: Logger,
    private readonly clock: () => number = Date.now,
    sharing: BreakerSharing = {},
  ) {
    this.sliceMs = Math.max(1, options.windowMs / slices)
    this.onChange = sharing.onChange
    this.probeSlot = sharing.probeSlot
    this.knowsRoute = sharing.knowsRoute ?? (() => true)
    this.probeClaims = new BackgroundJob(
      logger,
      'shared probe claim',
      'each instance probes a half-open route on its own until it works again',
    )
  }

  /** Claims of the shared probe slot that failed (Redis unreachable): this instance then probes alone. */
  private readonly probeClaims: BackgroundJob

  /**
   * Apply a change another instance decided: a route it found down is skipped here too until the same time (epoch
   * ms, so instances' clocks should roughly agree), and a route its probe found back is closed here too. An open
   * that would end sooner than the one this instance already has is ignored. The message comes from Redis, so it is
   * checked: a malformed one is ignored (and logged), so is a route this instance does not have (a newer config
   * elsewhere, or made up), and an open never lasts longer than this instance's own cooldown would.
   */
  adopt(message: unknown): void {
    const change = readRouteChange(message)
    if (!change) {
      this.logger.warn({}, 'ignored a malformed route change from another instance')
      return
    }
    if (!this.knowsRoute(change.route)) return
    if (change.state === 'open') change.until = Math.min(change.until, this.clock() + this.options.cooldownMs)
    const route = this.routeOf(change.route)
    if (change.state === 'closed') {
      if (route.state === 'closed') return
      route.state = 'closed'
      route.probing = false
      route.slices = newSlices()
      this.logger.info({ route: change.route }, 'route closed by another instance: back in rotation')
      return
    }
    if (route.state === 'open' && route.openUntil >= change.until) return
    if (change.until <= this.clock()) return
    route.state = 'open'
    route.probing = false
    route.openUntil = change.until
    route.slices = newSlices()
    route.trips++
    route.lastFailure = change.reason
    this.logger.warn(
      { route: change.route, cooldown_ms: change.until - this.clock(), reason: change.reason },
      'route open on another instance: skipped here too',
    )
  }

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

  /**
   * `acquire` across instances: with a shared probe slot, the probe this instance would send goes only if it claims
   * the slot (a promise then: the claim asks Redis). A closed route answers at once, as `acquire` does.
   */
  acquireShared(routeId: string): RouteTicket | undefined | Promise<RouteTicket | undefined> {
    const slot = this.probeSlot
    const ticket = this.acquire(routeId)
    if (!slot || !(ticket instanceof Ticket) || !ticket.probe) return ticket
    return this.claimProbe(routeId, this.routes.get(routeId)!, slot)
  }

  /**
   * Half-open with other instances: the one that claims the shared slot probes. The others treat the route as open
   * for one more cooldown (the claim's own expiry): the prober's verdict, announced, closes or reopens it here sooner;
   * a prober that died lets the claim expire and the next request here claims again. Redis unreachable: probe alone.
   */
  private async claimProbe(routeId: string, route: Route, slot: ProbeSlot): Promise<RouteTicket | undefined> {
    const won = await slot.claim(routeId, this.options.cooldownMs).then(
      (claimed) => {
        this.probeClaims.succeeded()
        return claimed
      },
      (error: unknown) => {
        this.probeClaims.failed(error)
        return true
      },
    )
    if (route.state !== 'half-open') {
      // Another instance's verdict arrived while we asked: follow it.
      if (won) slot.free(routeId)
      return route.state === 'closed' ? this.ticket(routeId, route, false) : undefined
    }
    if (won) return this.ticket(routeId, route, true)
    // Lost: the probe ticket taken is dropped unused (reporting it would free a slot this instance does not hold).
    route.state = 'open'
    route.probing = false
    route.openUntil = this.clock() + this.options.cooldownMs
    this.logger.info({ route: routeId }, 'route half-open: another instance probes it')
    return undefined
  }

  /** Milliseconds until `acquire` could succeed (0 if it could now; a probe in flight counts as a cooldown). */
  waitFor(routeId: string): number {
    const route = this.routes.get(routeId)
    if (!route || route.state === 'closed') return 0
    if (route.state === 'half-open') return route.probing ? this.options.cooldownMs : 0
    return Math.max(0, route.openUntil - this.clock())
  }

  snapshot(): RouteHealth[] {
    return [...this.routes].map(([route, state]) => {
      const recent = this.recent(state)
      return {
        route,
        state: state.state,
        requests: recent.requests,
        failures: recent.failures,
        trips: state.trips,
        openUntil: state.state === 'open' ? state.openUntil : undefined,
        lastFailure: state.lastFailure,
      }
    })
  }

  private ticket(routeId: string, route: Route, probe: boolean): RouteTicket {
    return new Ticket(this.outcomes, routeId, route, probe)
  }

  private succeed(routeId: string, route: Route, probe: boolean): void {
    if (probe) {
      this.probeSlot?.free(routeId)
      route.state = 'closed'
      route.probing = false
      route.slices = newSlices()
      this.logger.info({ route: routeId }, 'route closed: the probe succeeded, back in rotation')
      this.onChange?.({ route: routeId, state: 'closed' })
      return
    }
    this.count(route, false)
  }

  private fail(routeId: string, route: Route, probe: boolean, reason: string, pauseMs = 0): void {
    route.lastFailure = reason
    if (probe) {
      this.probeSlot?.free(routeId)
      this.open(routeId, route, this.options.cooldownMs, `probe failed: ${reason}`)
      return
    }
    if (route.state !== 'closed') return
    this.count(route, true)
    const { requests, failures } = this.recent(route)
    if (requests >= this.options.minRequests && failures / requests >= this.options.failureRatio) {
      this.open(routeId, route, this.options.cooldownMs, `${failures} of the last ${requests} attempts failed (${reason})`)
    } else if (pauseMs > 0) {
      // The upstream said when to come back; a longer wait than our own cooldown is left to the breaker's window.
      this.open(routeId, route, Math.min(pauseMs, this.options.cooldownMs), `upstream asked to retry after ${Math.ceil(pauseMs / 1000)} s`)
    }
  }

  private open(routeId: string, route: Route, forMs: number, why: string): void {
    route.state = 'open'
    route.probing = false
    route.openUntil = this.clock() + forMs
    route.slices = newSlices()
    route.trips++
    this.logger.warn({ route: routeId, cooldown_ms: forMs, reason: why }, 'route open: skipped until its cooldown ends')
    this.onChange?.({ route: routeId, state: 'open', until: route.openUntil, reason: why })
  }

  /** A probe that proved nothing (the client left): the next request probes instead. */
  private release(routeId: string, route: Route): void {
    route.probing = false
    this.probeSlot?.free(routeId)
  }

  /** Count an outcome in the current slice. */
  private count(route: Route, failed: boolean): void {
    const index = Math.floor(this.clock() / this.sliceMs)
    const slice = route.slices[index % slices]!
    if (slice.index !== index) {
      slice.index = index
      slice.requests = 0
      slice.failures = 0
    }
    slice.requests++
    if (failed) slice.failures++
  }

  /** Totals of the slices still inside the window. */
  private recent(route: Route): { requests: number; failures: number } {
    const oldest = Math.floor(this.clock() / this.sliceMs) - slices + 1
    let requests = 0
    let failures = 0
    for (const slice of route.slices) {
      if (slice.index < oldest) continue
      requests += slice.requests
      failures += slice.failures
    }
    return { requests, failures }
  }

  private routeOf(routeId: string): Route {
    let route = this.routes.get(routeId)
    if (!route) {
      route = { state: 'closed', slices: newSlices(), openUntil: 0, probing: false, trips: 0 }
      this.routes.set(routeId, route)
    }
    return route
  }
}
