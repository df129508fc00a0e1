import type { RedisLink } from './link.ts'

/** A route opening or closing (relay/circuit-breaker.ts RouteChange: db may not import relay, so its shape). */
export type RouteChangeRecord = { route: string; state: 'open'; until: number; reason: string } | { route: string; state: 'closed' }

/** Routes open now, field = route, value = {until, reason}; the hash expires with the last of them. */
const openRoutesKey = 'tollgate:routes:open'
const probeKey = (route: string) => `tollgate:routes:probe:${route}`

// A field per route in one hash, its expiry pushed out to the latest cooldown's end (Redis 7.0 has no field expiry;
// a field past its `until` is ignored by readers and goes with the hash).
const recordOpen = `redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
local ttl = tonumber(ARGV[3])
if redis.call('PTTL', KEYS[1]) < ttl then redis.call('PEXPIRE', KEYS[1], ttl) end
return 1`

// Only the claimant frees a probe slot: a slot it held past its expiry may be another instance's by now.
const freeOwnSlot = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`

/**
 * Route health kept in Redis beside the pub/sub announcements: which routes are open (so an instance starting
 * late skips them as the others do, instead of finding each one down again), and each route's half-open probe slot
 * (one SET NX with an expiry), so after a shared cooldown one probe goes out across the instances, not one each.
 * Every call is best effort: with Redis down each instance keeps and probes its own routes.
 */
export class RedisRouteHealth {
  /** Names this instance's probe claims, so it frees only its own. */
  private readonly owner = crypto.randomUUID()

  constructor(private readonly link: RedisLink) {
    link.register(recordOpen)
    link.register(freeOwnSlot)
  }

  /** Keep an open route until its cooldown ends; forget a closed one. Not awaited. */
  record(change: RouteChangeRecord): void {
    const written =
      change.state === 'open'
        ? this.link.script(
            recordOpen,
            [openRoutesKey],
            [change.route, JSON.stringify({ until: change.until, reason: change.reason }), String(Math.max(1, change.until - Date.now()))],
          )
        : this.link.send('HDEL', [openRoutesKey, change.route])
    written.catch((error) => this.link.failed(error))
  }

  /** The routes open now (read at start); none when Redis is unreachable. */
  async openRoutes(now = Date.now()): Promise<RouteChangeRecord[]> {
    const answer = await this.link.send('HGETALL', [openRoutesKey]).catch((error: unknown) => this.link.failed(error))
    const entries = Array.isArray(answer) ? pairsOf(answer as string[]) : Object.entries((answer ?? {}) as Record<string, string>)
    const open: RouteChangeRecord[] = []
    for (const [route, value] of entries) {
      try {
        const { until, reason } = JSON.parse(value) as { until: number; reason: string }
        if (typeof until === 'number' && until > now) open.push({ route, state: 'open', until, reason: String(reason) })
      } catch {
        // Not ours to read: left for the hash's expiry.
      }
    }
    return open
  }

  /** True when this instance may send the route's probe; rejects when Redis is unreachable (the caller probes alone). */
  async claim(route: string, ttlMs: number): Promise<boolean> {
    return (await this.link.send('SET', [probeKey(route), this.owner, 'NX', 'PX', String(Math.max(1, Math.ceil(ttlMs)))])) === 'OK'
  }

  free(route: string): void {
    this.link.script(freeOwnSlot, [probeKey(route)], [this.owner]).catch((error) => this.link.failed(error))
  }
}

function pairsOf(flat: string[]): [string, string][] {
  const pairs: [string, string][] = []
  for (let index = 0; index + 1 < flat.length; index += 2) pairs.push([flat[index]!, flat[index + 1]!])
  return pairs
}
