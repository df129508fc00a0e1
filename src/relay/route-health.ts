/** What the circuit breaker (circuit-breaker.ts) is told, tells and shares: its settings, routes' health and changes. */

export type RouteState = 'closed' | 'open' | 'half-open'

export interface BreakerOptions {
  /** Outcomes older than this no longer count (to a tenth of it: the window moves in ten slices). */
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

/** A route opening or closing, told to other instances (Redis pub/sub) so that one's discovery spares the others. */
export type RouteChange = { route: string; state: 'open'; until: number; reason: string } | { route: string; state: 'closed' }

/** The longest reason kept from another instance's message (it is shown in /status and logged). */
const maxReasonChars = 300

/**
 * A route change as read from Redis, or undefined when it is not one: whatever is on the channel or in the hash is
 * checked, never trusted as sent (anyone with access to Redis can write there).
 */
export function readRouteChange(message: unknown): RouteChange | undefined {
  if (message === null || typeof message !== 'object') return undefined
  const { route, state, until, reason } = message as Record<string, unknown>
  if (typeof route !== 'string') return undefined
  if (state === 'closed') return { route, state }
  if (state !== 'open' || typeof until !== 'number' || !Number.isFinite(until)) return undefined
  return { route, state, until, reason: typeof reason === 'string' ? reason.slice(0, maxReasonChars) : 'reported by another instance' }
}

/**
 * The probe slot of every route, shared by the instances (Redis): after a shared cooldown one probe goes out across
 * them all, not one per instance.
 */
export interface ProbeSlot {
  /** Whether this instance may send the probe of `route` now; the slot is held at most `ttlMs`. Rejects when unreachable. */
  claim(route: string, ttlMs: number): Promise<boolean>
  /** This instance's probe of `route` ended, however it ended: the slot is free. */
  free(route: string): void
}
