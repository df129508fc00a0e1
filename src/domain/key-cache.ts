import { isBug, messageOf } from '../core/background-failures.ts'
import type { Logger } from '../core/logger.ts'
import { silentLogger } from '../core/logger.ts'
import { reportFailure } from '../core/report-failure.ts'
import type { KeyRecord } from './records.ts'
import type { KeyRepository } from './repositories.ts'
import { hashKey } from './keys.ts'

export interface KeyCacheOptions {
  pollMs?: number
  /** Where a failing poll is told, once per streak of failures. */
  logger?: Logger
}

/**
 * Keys held in memory so that authenticating a request costs a hash and a map lookup, not a query.
 *
 * Freshness: every `pollMs` the cache asks the store for keys changed since its last look (an indexed query on
 * `updated_at`), so a key created or revoked by the CLI, the console or another instance counts within a second.
 * A secret the cache does not know is looked up once in the store before being refused, so a brand-new key
 * works at once on the instance that made it and at worst after one lookup elsewhere.
 *
 * A change made here (KeyService) is applied to this cache before its answer (`remember`, a KeyService listener) and,
 * with Redis, announced on pub/sub: every other instance reloads that key at once (`reload`), so a revocation counts
 * everywhere within milliseconds; polling stays as the fallback for a lost message or Redis being down.
 *
 * A poll that fails (the store unreachable) leaves the keys as they were: a revocation made elsewhere meanwhile may not
 * count here until a poll succeeds. So a failing streak is logged (once, when it begins, and when it ends), and
 * `staleSeconds` (on `/metrics`) says how old the newest complete view of the keys is.
 */
export class KeyCache {
  private readonly byHash = new Map<string, KeyRecord>()
  private readonly byId = new Map<string, string>()
  private lastSync = 0
  private timer: ReturnType<typeof setInterval> | undefined
  private polling = false
  private readonly pollMs: number
  private readonly logger: Logger
  /** Polls failed in a row (0 while they succeed), and in all since start. */
  private failedInARow = 0
  pollFailures = 0

  constructor(
    private readonly repository: KeyRepository,
    options: KeyCacheOptions = {},
  ) {
    this.pollMs = options.pollMs ?? 500
    this.logger = options.logger ?? silentLogger
  }

  async start(): Promise<void> {
    await this.refresh()
    this.timer = setInterval(() => void this.poll(), this.pollMs)
    this.timer.unref?.()
  }

  /** Seconds since the start of the last poll that succeeded: what a change made elsewhere may wait, at most, to count here. */
  staleSeconds(now = Date.now()): number {
    return Math.max(0, (now - this.lastSync) / 1000)
  }

  /** One poll; never two at once (a store that hangs must not pile them up). */
  private async poll(): Promise<void> {
    if (this.polling) return
    this.polling = true
    try {
      await this.refresh()
      if (this.failedInARow > 0) {
        this.logger.info({ failed_polls: this.failedInARow }, 'key polling works again: key changes made elsewhere count here again')
        this.failedInARow = 0
      }
    } catch (error) {
      this.pollFailures++
      if (this.failedInARow++ === 0) this.reportPollFailure(error)
    } finally {
      this.polling = false
    }
  }

  private reportPollFailure(error: unknown): void {
    if (isBug(error)) {
      reportFailure(this.logger, error, { route: 'key polling' })
      return
    }
    this.logger.warn(
      { err: messageOf(error), stale_s: Math.round(this.staleSeconds()) },
      'key polling failed: key changes made elsewhere (a revocation) may not count here until it works again; see tollgate_key_cache_stale_seconds',
    )
  }

  stop(): void {
    clearInterval(this.timer)
  }

  /** Pull changes; the two-second overlap absorbs clock skew between instances and same-millisecond writes. */
  async refresh(): Promise<void> {
    const startedAt = Date.now()
    for (const key of await this.repository.changedSince(Math.max(0, this.lastSync - 2000))) this.remember(key)
    this.lastSync = startedAt
  }

  /** The key behind a secret, whatever its status, when it is in memory (every request of a known key). */
  known(secret: string): KeyRecord | undefined {
    return this.byHash.get(hashKey(secret))
  }

  /** The key behind a secret not in memory, after one lookup in the store; undefined when no such key exists. */
  async lookUp(secret: string): Promise<KeyRecord | undefined> {
    const hash = hashKey(secret)
    const stored = await this.repository.findByHash(hash)
    if (stored) this.remember(stored)
    return stored
  }

  /** Another instance announced a change to this key: read it again now rather than at the next poll. */
  async reload(keyId: string): Promise<void> {
    const key = await this.repository.findById(keyId)
    if (key) this.remember(key)
  }

  /**
   * Apply a key as read from the store. A read can arrive after a newer one (a poll started before an announced
   * revocation, answering after its reload): an older record never replaces a newer one, nor undoes a revocation.
   */
  remember(key: KeyRecord): void {
    const previousHash = this.byId.get(key.id)
    const previous = previousHash === undefined ? undefined : this.byHash.get(previousHash)
    if (previous && (key.updatedAt < previous.updatedAt || (previous.revokedAt !== null && key.revokedAt === null))) return
    if (previousHash !== undefined && previousHash !== key.hash) this.byHash.delete(previousHash)
    this.byHash.set(key.hash, key)
    this.byId.set(key.id, key.hash)
  }
}
