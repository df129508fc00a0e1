import { GatewayError, type RateLimitState, type RateLimitWindow } from '../core/errors.ts'
import type { KeyRecord } from './records.ts'

/** Every per-key window is a sliding minute, in memory and in Redis alike. */
export const windowMs = 60_000

/** What one key did in the last minute, and what it is doing now. */
interface KeyUsage {
  /** Admission times of the requests of the last minute, oldest first. */
  requests: number[]
  /** Tokens of the finished requests of the last minute, oldest first. */
  tokens: { at: number; count: number }[]
  tokenSum: number
  /** Tokens reserved by requests still running (their prompt estimate). */
  reserved: number
  active: number
}

/** One admitted request's claim on its key's limits. */
export interface Permit {
  /** The key's limits as they stand after this admission, for `x-ratelimit-*` headers on success. */
  readonly state: RateLimitState | undefined
  /** The request is over: its token reservation becomes what it really used, its concurrency slot frees. */
  release(tokensUsed: number): void
  /** The request never ran (refused by the balance, say): undo the admission as if it never happened. */
  cancel(): void
}

/** What limits are counted for: a key, or a project (its limits shared by all its keys), named in refusals by `label`. */
export type LimitedKey = Pick<KeyRecord, 'id' | 'rpm' | 'tpm' | 'concurrency'> & { label?: string }

/** The permit of a key without limits: nothing to count, nothing to give back. */
export const freePermit: Permit = { state: undefined, release() {}, cancel() {} }

/** Whether a key has any limit to count (a key without one is admitted with `freePermit`, no work). */
export function hasLimits(key: LimitedKey): boolean {
  return key.rpm !== null || key.tpm !== null || key.concurrency !== null
}

/**
 * Where per-key limits are counted: in this process (KeyLimiter) or shared by every instance (db/redis). Both throw
 * the same 429 (`rateLimitRefusal`). One return type per function: `admitNow` answers at once when it can — always
 * in memory — and returns undefined when only a round trip can tell, which `admitLater` makes; the relay awaits only
 * then, so the in-memory path costs no promise (`admitNow(…) ?? await admitLater(…)`).
 */
export interface Limiter {
  admitNow(key: LimitedKey, tokens: number): Permit | undefined
  admitLater(key: LimitedKey, tokens: number): Promise<Permit>
}

/** What a refusal is about, in the order they are checked. */
export type RefusalReason = 'concurrency' | 'requests' | 'tokens'

/** The 429 of a refused admission, the same wherever the limits are counted; `waitMs` becomes Retry-After. */
export function rateLimitRefusal(
  reason: RefusalReason,
  key: LimitedKey,
  tokens: number,
  waitMs: number,
  state: RateLimitState,
): GatewayError {
  if (reason === 'concurrency') {
    return new GatewayError(
      'rate_limit',
      `${capitalize(key.label ?? 'this API key')} allows ${key.concurrency} concurrent request(s); wait for one to finish.`,
      { code: 'concurrency_limit_exceeded', retryAfter: 1, rateLimit: state },
    )
  }
  if (reason === 'requests') {
    return new GatewayError('rate_limit', `Rate limit reached: ${key.label ?? 'this API key'} allows ${key.rpm} requests per minute.`, {
      code: 'rate_limit_exceeded',
      retryAfter: seconds(waitMs),
      rateLimit: state,
    })
  }
  const message =
    tokens > key.tpm!
      ? `This request (about ${tokens} tokens) is larger than ${key.label ?? 'this API key'}'s limit of ${key.tpm} tokens per minute.`
      : `Rate limit reached: ${key.label ?? 'this API key'} allows ${key.tpm} tokens per minute.`
  return new GatewayError('rate_limit', message, { code: 'rate_limit_exceeded', retryAfter: seconds(waitMs), rateLimit: state })
}

const capitalize = (text: string) => text.charAt(0).toUpperCase() + text.slice(1)

/** A project's limits, counted apart from its keys' own (`project:<id>`): every key of the project shares them. */
export function projectLimits(key: KeyRecord): LimitedKey | undefined {
  const project = key.project
  if (!project || (project.rpm === null && project.tpm === null && project.concurrency === null)) return undefined
  return {
    id: `project:${project.id}`,
    rpm: project.rpm,
    tpm: project.tpm,
    concurrency: project.concurrency,
    label: `project "${project.name}"`,
  }
}

/** A project's admission after its key's, as one permit; refused there, the key's admission is undone. */
export async function withProject(keyPermit: Permit, admitProject: () => Promise<Permit>): Promise<Permit> {
  try {
    return bothPermits(keyPermit, await admitProject())
  } catch (error) {
    keyPermit.cancel()
    throw error
  }
}

/** Two admissions as one: released and cancelled together; the key's own limits are what headers show. */
function bothPermits(key: Permit, project: Permit): Permit {
  return {
    state: key.state ?? project.state,
    release(tokensUsed) {
      key.release(tokensUsed)
      project.release(tokensUsed)
    },
    cancel() {
      key.cancel()
      project.cancel()
    },
  }
}

/**
 * Requests per minute, tokens per minute and concurrent requests, per key, in this process.
 *
 * Exact under concurrency because `admit` checks and counts in one synchronous step: JavaScript runs it to the end
 * before any other request's `admit` can start. Minutes are sliding windows (no burst of 2× the limit at a window
 * edge). Tokens: a request reserves its prompt estimate when admitted and is counted at its real usage when it ends;
 * a request is admitted only while the minute's tokens plus the reservations leave room for its estimate, so the
 * limit can be passed only by the output of requests already running.
 */
export class KeyLimiter implements Limiter {
  private readonly keys = new Map<string, KeyUsage>()

  constructor(private readonly clock: () => number = Date.now) {}

  admitNow(key: LimitedKey, tokens: number): Permit {
    return this.admit(key, tokens)
  }

  async admitLater(key: LimitedKey, tokens: number): Promise<Permit> {
    return this.admit(key, tokens)
  }

  /** Admit a request estimated at `tokens` prompt tokens, or throw a 429 carrying the key's limit state. */
  admit(key: LimitedKey, tokens: number): Permit {
    if (!hasLimits(key)) return freePermit
    const now = this.clock()
    const usage = this.usageOf(key.id, now)
    if (key.concurrency !== null && usage.active >= key.concurrency) {
      throw rateLimitRefusal('concurrency', key, tokens, 0, this.state(key, usage, now))
    }
    if (key.rpm !== null && usage.requests.length >= key.rpm) {
      // The oldest request that must leave the window before one more fits.
      const wait = usage.requests[usage.requests.length - key.rpm]! + windowMs - now
      throw rateLimitRefusal('requests', key, tokens, wait, this.state(key, usage, now))
    }
    if (key.tpm !== null && usage.tokenSum + usage.reserved + tokens > key.tpm) {
      const wait = tokensFreedMs(usage, now, usage.tokenSum + usage.reserved + tokens - key.tpm)
      throw rateLimitRefusal('tokens', key, tokens, wait, this.state(key, usage, now))
    }
    usage.requests.push(now)
    usage.reserved += tokens
    usage.active++
    const state = this.state(key, usage, now)
    let done = false
    return {
      state,
      release: (tokensUsed) => {
        if (done) return
        done = true
        usage.reserved -= tokens
        usage.active--
        if (tokensUsed > 0 && Number.isSafeInteger(tokensUsed)) {
          // never NaN into the window: it would never drain
          usage.tokens.push({ at: this.clock(), count: tokensUsed })
          usage.tokenSum += tokensUsed
        }
        this.forgetIfIdle(key.id, usage)
      },
      cancel: () => {
        if (done) return
        done = true
        usage.reserved -= tokens
        usage.active--
        const index = usage.requests.lastIndexOf(now)
        if (index !== -1) usage.requests.splice(index, 1)
        this.forgetIfIdle(key.id, usage)
      },
    }
  }

  private usageOf(keyId: string, now: number): KeyUsage {
    let usage = this.keys.get(keyId)
    if (!usage) {
      usage = emptyUsage()
      this.keys.set(keyId, usage)
    }
    const since = now - windowMs
    let expired = 0
    while (expired < usage.requests.length && usage.requests[expired]! <= since) expired++
    if (expired) usage.requests.splice(0, expired)
    expired = 0
    while (expired < usage.tokens.length && usage.tokens[expired]!.at <= since) usage.tokenSum -= usage.tokens[expired++]!.count
    if (expired) usage.tokens.splice(0, expired)
    return usage
  }

  private forgetIfIdle(keyId: string, usage: KeyUsage): void {
    if (usage.active === 0 && usage.requests.length === 0 && usage.tokens.length === 0) this.keys.delete(keyId)
  }

  /** Limits as the headers report them: `resetMs` is the time until the window is fully replenished. */
  private state(key: LimitedKey, usage: KeyUsage, now: number): RateLimitState {
    const state: RateLimitState = { at: now }
    if (key.rpm !== null) {
      const newest = usage.requests.at(-1)
      state.requests = rateWindow(key.rpm, key.rpm - usage.requests.length, newest === undefined ? 0 : newest + windowMs - now)
    }
    if (key.tpm !== null) {
      const newest = usage.tokens.at(-1)
      // Tokens of running requests are counted when they end and then stay a minute.
      const resetMs = usage.reserved > 0 ? windowMs : newest === undefined ? 0 : newest.at + windowMs - now
      state.tokens = rateWindow(key.tpm, key.tpm - usage.tokenSum - usage.reserved, resetMs)
    }
    return state
  }
}

function emptyUsage(): KeyUsage {
  return { requests: [], tokens: [], tokenSum: 0, reserved: 0, active: 0 }
}

export function rateWindow(limit: number, remaining: number, resetMs: number): RateLimitWindow {
  return { limit, remaining: Math.max(0, remaining), resetMs: Math.max(0, Math.ceil(resetMs)) }
}

/** How long until `excess` tokens have left the window; a full minute when running requests hold them. */
function tokensFreedMs(usage: KeyUsage, now: number, excess: number): number {
  let freed = 0
  for (const entry of usage.tokens) {
    freed += entry.count
    if (freed >= excess) return entry.at + windowMs - now
  }
  return windowMs
}

function seconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000))
}
