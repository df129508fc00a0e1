import { createHash } from 'node:crypto'
import { type FailureLog, MemoryFailureLog } from '../../domain/failure-log.ts'

/**
 * The longest username a sign-in may give, in UTF-8 bytes: far above any real login (64 characters, names.ts), and
 * low enough that a guess cannot be used to make the gateway hash or keep megabytes. Longer is a 400, not counted.
 */
export const maxUsernameBytes = 256

export interface SignInLimits {
  /** Failures of one name from one address before that pair is refused (until the oldest ages out). */
  maxFailures: number
  windowMs: number
  /** Failures from one address, whatever the names, before it is refused: a spray of names. */
  maxAddressFailures: number
  /** Longest pause the per-name backoff asks for. */
  maxBackoffMs: number
}

const defaults: SignInLimits = { maxFailures: 5, windowMs: 15 * 60_000, maxAddressFailures: 20, maxBackoffMs: 15 * 60_000 }

/**
 * Slows password guessing without letting a guesser lock the rightful user out:
 *
 * - per name and address: `maxFailures` failures in `windowMs` refuse that address for that name;
 * - per address: `maxAddressFailures` failures, whatever the names, refuse the address (a spray);
 * - per name: once a name has `maxFailures` failures from anywhere, an address that has itself failed on that name
 *   must wait a backoff (1 s, doubling per further failure, up to `maxBackoffMs`) after the name's latest failure.
 *   An address that has not failed on the name is never refused for it: the admin signs in from their own machine
 *   whatever is thrown at their name from elsewhere.
 *
 * Unknown names are counted exactly like known ones (the answers reveal nothing about which exist); they are only
 * stored apart (failure-log.ts), so inventing names cannot flush the counts of real ones. An address past its limit
 * records nothing more, which bounds what one address can store. With Redis the counts are shared by every
 * instance; without it (or while it is down) they live in this process. Names and addresses are kept as hashes, so a
 * key costs the same few bytes however long the text a client sent.
 */
export class SignInLimiter {
  private readonly inFlight = new Map<string, number>()
  private inFlightTotal = 0
  private readonly limits: SignInLimits

  constructor(
    private readonly log: FailureLog = new MemoryFailureLog(),
    limits: Partial<SignInLimits> = {},
  ) {
    this.limits = { ...defaults, ...limits }
  }

  /**
   * Failures are counted only once a password has been checked, so a burst of simultaneous attempts would all
   * pass `retryAfter` first. Each check costs an argon2 hash (CPU and ~19 MiB): at most two run at once per
   * address and eight in all; `begin` returns false beyond that and the caller refuses the attempt. Per process:
   * it bounds this process's CPU and memory.
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

  /** Seconds to wait before the next attempt is even checked; 0 when it may go ahead. */
  async retryAfter(username: string, address: string, now = Date.now()): Promise<number> {
    const { maxFailures, windowMs, maxAddressFailures } = this.limits
    const [pair, fromAddress, ofName] = (await this.log.read(keysOf(username, address), now - windowMs)) as [number[], number[], number[]]
    let waitMs = 0
    if (pair.length >= maxFailures) waitMs = Math.max(waitMs, pair[pair.length - maxFailures]! + windowMs - now)
    if (fromAddress.length >= maxAddressFailures)
      waitMs = Math.max(waitMs, fromAddress[fromAddress.length - maxAddressFailures]! + windowMs - now)
    if (pair.length > 0 && ofName.length >= maxFailures) waitMs = Math.max(waitMs, this.backoffMs(ofName.length) + ofName.at(-1)! - now)
    return Math.ceil(waitMs / 1000)
  }

  /** `known`: whether the name is a user's (only where the count is kept depends on it). */
  async recordFailure(username: string, address: string, known: boolean, now = Date.now()): Promise<void> {
    const [pairKey, addressKey, nameKey] = keysOf(username, address)
    const [fromAddress] = (await this.log.read([addressKey], now - this.limits.windowMs)) as [number[]]
    if (fromAddress.length >= this.limits.maxAddressFailures) return // refused from now on anyway: store nothing more
    const kind = known ? 'known' : 'unknown'
    await this.log.add(
      [
        { key: pairKey, kind },
        { key: addressKey, kind: 'address' },
        { key: nameKey, kind },
      ],
      now,
      this.limits.windowMs,
    )
  }

  /**
   * A correct password clears that name's count from that address (not the address's own count: one success does not
   * excuse a spray; nor the name's: other addresses guessing it stay slowed).
   */
  async recordSuccess(username: string, address: string): Promise<void> {
    await this.log.clear(keysOf(username, address)[0])
  }

  /**
   * An admin vouches for a name: forget its failures, from every address (the per-address counts stay: a spray of
   * names from one address is not excused by unlocking one of them).
   */
  async clear(username: string): Promise<void> {
    const name = digestOf(username.toLowerCase())
    await Promise.all([this.log.clearPrefix(pairPrefix(name)), this.log.clear(`name:${name}`)])
  }

  private backoffMs(nameFailures: number): number {
    return Math.min(this.limits.maxBackoffMs, 1000 * 2 ** Math.min(30, nameFailures - this.limits.maxFailures))
  }
}

function keysOf(username: string, address: string): [pair: string, address: string, name: string] {
  const name = digestOf(username.toLowerCase())
  const from = digestOf(address)
  return [`${pairPrefix(name)}${from}`, `address:${from}`, `name:${name}`]
}

const pairPrefix = (name: string) => `pair:${name}:`

/** 128 bits of SHA-256: collisions cannot be made to order, so one name's count cannot be aimed at another's. */
function digestOf(text: string): string {
  return createHash('sha256').update(text).digest('base64url').slice(0, 22)
}
