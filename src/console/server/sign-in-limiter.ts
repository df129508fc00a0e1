/**
 * Slows password guessing: after `maxFailures` failed sign-ins within `windowMs` for the same username, or
 * `maxFailures × 4` from the same client address, further attempts are refused until the oldest failure ages
 * out. Unknown usernames are counted exactly like known ones, so the limiter reveals nothing about which exist.
 *
 * Kept in memory: one gateway process is the unit that a guesser talks to, and a restart forgetting the
 * counts costs an attacker a restart each time.
 */
export class SignInLimiter {
  private readonly failures = new Map<string, number[]>()
  private readonly inFlight = new Map<string, number>()
  private inFlightTotal = 0

  constructor(private readonly maxFailures = 5, private readonly windowMs = 15 * 60_000, private readonly maxTracked = 10_000) {}

  /**
   * Failures are counted only once a password has been checked, so a burst of simultaneous attempts would all
   * pass `retryAfter` first. Each check costs an argon2 hash (CPU and ~19 MiB): at most two run at once per
   * address and eight in all; `begin` returns false beyond that and the caller refuses the attempt.
   */
  begin(address: string): boolean {
    const mine = this.inFlight.get(address) ?? 0
    if (mine >= 2 || this.inFlightTotal >= 8) return false
    this.inFlight.set(address, mine + 1)
    this.inFlightTotal++
    return true
  }

  end(address: string): void {
    const mine = (this.inFlight.get(address) ?? 1) - 1
    if (mine > 0) this.inFlight.set(address, mine)
    else this.inFlight.delete(address)
    this.inFlightTotal--
  }

  private keys(username: string, address: string): [string, number][] {
    return [[`user:${username.toLowerCase()}`, this.maxFailures], [`address:${address}`, this.maxFailures * 4]]
  }

  private recent(key: string, now: number): number[] {
    const times = (this.failures.get(key) ?? []).filter((time) => time > now - this.windowMs)
    if (times.length) this.failures.set(key, times)
    else this.failures.delete(key)
    return times
  }

  /** Seconds to wait before the next attempt is even checked; 0 when it may go ahead. */
  retryAfter(username: string, address: string, now = Date.now()): number {
    let waitMs = 0
    for (const [key, limit] of this.keys(username, address)) {
      const times = this.recent(key, now)
      if (times.length >= limit) waitMs = Math.max(waitMs, times[times.length - limit]! + this.windowMs - now)
    }
    return Math.ceil(waitMs / 1000)
  }

  recordFailure(username: string, address: string, now = Date.now()): void {
    if (this.failures.size >= this.maxTracked) this.forgetOldest()
    for (const [key] of this.keys(username, address)) this.failures.set(key, [...this.recent(key, now), now])
  }

  /** A correct password clears that username's count (not the address's: one success does not excuse a spray). */
  recordSuccess(username: string): void {
    this.failures.delete(`user:${username.toLowerCase()}`)
  }

  /** Bound the memory a flood of invented usernames can take; the oldest entries go first. */
  private forgetOldest(): void {
    let excess = this.failures.size - Math.floor(this.maxTracked * 0.9)
    for (const key of this.failures.keys()) {
      if (excess-- <= 0) break
      this.failures.delete(key)
    }
  }
}
