import type { RateLimitState } from '../../core/errors.ts'
import {
  freePermit,
  hasLimits,
  KeyLimiter,
  type LimitedKey,
  type Limiter,
  type Permit,
  rateLimitRefusal,
  rateWindow,
  type RefusalReason,
  windowMs,
} from '../../domain/limits.ts'
import { admitScript, endScript, renewScript } from './limiter-scripts.ts'
import type { RedisLink } from './link.ts'

const reasons: RefusalReason[] = ['concurrency', 'requests', 'tokens']

/** One key's Redis key names, built once per key rather than per request. */
interface KeyNames {
  requests: string
  tokens: string
  tokenSum: string
  running: string
  reserved: string
}

/**
 * Per-key rpm / tpm / concurrency counted across every instance, in Redis: one script per admission checks and records
 * in one atomic step (limiter-scripts.ts), one round trip auto-pipelined with the other requests'. Windows are sliding
 * minutes, as in memory. Releases go out without being awaited; a slot whose release is lost (Redis down, instance
 * killed) is reclaimed when its lease — renewed every `leaseMs / 3` by the instance holding it — expires.
 *
 * While Redis is unreachable each instance counts in memory (`local`): the key gets its limits per instance, and
 * permits taken locally are released locally even after Redis is back.
 */
export class RedisLimiter implements Limiter {
  private readonly names = new Map<string, KeyNames>()
  /** Requests of this instance holding a slot or reservation in Redis: their leases are renewed. */
  private readonly live = new Set<RedisPermit>()
  private readonly renewing: ReturnType<typeof setInterval>
  private sequence = 0
  private readonly instance = crypto.randomUUID().slice(0, 8)

  constructor(
    private readonly link: RedisLink,
    readonly local = new KeyLimiter(),
    private readonly leaseMs = 30_000,
  ) {
    for (const script of [admitScript, endScript, renewScript]) link.register(script)
    this.renewing = setInterval(() => this.renew(), Math.max(100, Math.floor(leaseMs / 3)))
    this.renewing.unref?.()
  }

  stop(): void {
    clearInterval(this.renewing)
  }

  admitNow(key: LimitedKey, tokens: number): Permit | undefined {
    if (!hasLimits(key)) return freePermit
    return this.link.up ? undefined : this.local.admit(key, tokens)
  }

  async admitLater(key: LimitedKey, tokens: number): Promise<Permit> {
    const names = this.namesOf(key.id)
    const id = `${this.instance}.${(this.sequence++).toString(36)}`
    let reply: number[]
    try {
      reply = (await this.link.script(
        admitScript,
        [names.requests, names.tokens, names.tokenSum, names.running, names.reserved],
        [
          String(key.rpm ?? -1),
          String(key.tpm ?? -1),
          String(key.concurrency ?? -1),
          String(tokens),
          id,
          String(this.leaseMs),
          String(windowMs),
        ],
      )) as number[]
    } catch (error) {
      this.link.failed(error)
      return this.local.admit(key, tokens)
    }
    const [verdict, now, count, , tokenSum, reserved, newestRequest, newestToken, wait] = reply as [
      number,
      number,
      number,
      number,
      number,
      number,
      number,
      number,
      number,
    ]
    const state = stateOf(key, count, tokenSum, reserved, newestRequest, newestToken, now)
    if (verdict !== 0) throw rateLimitRefusal(reasons[verdict - 1]!, key, tokens, wait, state)
    const permit = new RedisPermit(this, key, names, id, tokens, state)
    if (permit.running) this.live.add(permit)
    return permit
  }

  /** A permit's end: one script, not awaited by the request; a lost one is made good by the lease's expiry. */
  end(permit: RedisPermit, mode: 'release' | 'cancel', used: number): void {
    this.live.delete(permit)
    const { names } = permit
    if (!permit.running && mode === 'release') return // rpm only: the admission stays in the minute, nothing to give back
    this.link
      .script(
        endScript,
        [names.running, names.reserved, names.tokens, names.tokenSum, names.requests],
        [
          `${permit.id}|${permit.tokens}`,
          String(permit.tokens),
          String(permit.key.tpm === null ? 0 : used),
          String(windowMs),
          mode,
          permit.id,
        ],
      )
      .catch((error) => this.link.failed(error))
  }

  private renew(): void {
    if (this.live.size === 0 || !this.link.up) return
    const keys: string[] = []
    const members: string[] = []
    for (const permit of this.live) {
      keys.push(permit.names.running, permit.names.reserved)
      members.push(`${permit.id}|${permit.tokens}`)
    }
    this.link.script(renewScript, keys, [String(this.leaseMs), ...members]).catch((error) => this.link.failed(error))
  }

  private namesOf(keyId: string): KeyNames {
    let names = this.names.get(keyId)
    if (!names) {
      // One hash tag per key: the key's five entries stay in one slot should the Redis be a cluster.
      const base = `tollgate:limits:{${keyId}}`
      names = {
        requests: `${base}:requests`,
        tokens: `${base}:tokens`,
        tokenSum: `${base}:token_sum`,
        running: `${base}:running`,
        reserved: `${base}:reserved`,
      }
      this.names.set(keyId, names)
    }
    return names
  }
}

/** The limits as the headers report them, from the figures the script saw (the same rules as KeyLimiter's). */
function stateOf(
  key: LimitedKey,
  count: number,
  tokenSum: number,
  reserved: number,
  newestRequest: number,
  newestToken: number,
  now: number,
): RateLimitState {
  const state: RateLimitState = { at: Date.now() }
  if (key.rpm !== null) state.requests = rateWindow(key.rpm, key.rpm - count, newestRequest < 0 ? 0 : newestRequest + windowMs - now)
  if (key.tpm !== null) {
    const resetMs = reserved > 0 ? windowMs : newestToken < 0 ? 0 : newestToken + windowMs - now
    state.tokens = rateWindow(key.tpm, key.tpm - tokenSum - reserved, resetMs)
  }
  return state
}

class RedisPermit implements Permit {
  /** Whether it holds a concurrency slot or a token reservation (an rpm-only key's permit holds neither). */
  readonly running: boolean
  private done = false

  constructor(
    private readonly limiter: RedisLimiter,
    readonly key: LimitedKey,
    readonly names: KeyNames,
    readonly id: string,
    readonly tokens: number,
    readonly state: RateLimitState,
  ) {
    this.running = key.concurrency !== null || key.tpm !== null
  }

  release(tokensUsed: number): void {
    if (this.done) return
    this.done = true
    this.limiter.end(this, 'release', tokensUsed > 0 && Number.isSafeInteger(tokensUsed) ? tokensUsed : 0)
  }

  cancel(): void {
    if (this.done) return
    this.done = true
    this.limiter.end(this, 'cancel', 0)
  }
}
