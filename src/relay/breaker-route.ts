import type { RouteState, RouteTicket } from './route-health.ts'

// A route's state as the circuit breaker (circuit-breaker.ts) keeps it: its window of outcomes in time slices, and
// the ticket each attempt on it reports through.

/** The window is kept as this many time slices, so recording an outcome is O(1) however busy the route is. */
export const slices = 10

export interface Slice {
  /** Which slice of time (epoch ms / slice length) the counts belong to. */
  index: number
  requests: number
  failures: number
}

export interface Route {
  state: RouteState
  slices: Slice[]
  openUntil: number
  probing: boolean
  trips: number
  lastFailure?: string
}

/** How a Ticket's one report reaches the breaker that issued it. */
export interface Outcomes {
  succeed(routeId: string, route: Route, probe: boolean): void
  fail(routeId: string, route: Route, probe: boolean, reason: string, pauseMs?: number): void
  release(routeId: string, route: Route): void
}

export function newSlices(): Slice[] {
  return Array.from({ length: slices }, () => ({ index: -1, requests: 0, failures: 0 }))
}

/**
 * One attempt's ticket: the first report counts, later ones are ignored. A class rather than closures because
 * every request takes one (closures cost five functions and their scopes per request, all garbage a moment later).
 */
export class Ticket implements RouteTicket {
  private reported = false

  constructor(
    private readonly outcomes: Outcomes,
    private readonly routeId: string,
    private readonly route: Route,
    readonly probe: boolean,
  ) {}

  succeeded(): void {
    if (this.first()) this.outcomes.succeed(this.routeId, this.route, this.probe)
  }

  failed(reason: string, pauseMs?: number): void {
    if (this.first()) this.outcomes.fail(this.routeId, this.route, this.probe, reason, pauseMs)
  }

  released(): void {
    if (this.first() && this.probe) this.outcomes.release(this.routeId, this.route)
  }

  private first(): boolean {
    if (this.reported) return false
    this.reported = true
    return true
  }
}
