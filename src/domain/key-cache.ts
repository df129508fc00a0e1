import type { KeyRecord } from './records.ts'
import type { KeyRepository } from './repositories.ts'
import { hashKey } from './keys.ts'

/**
 * Keys held in memory so that authenticating a request costs a hash and a map lookup, not a query.
 *
 * Freshness: every `pollMs` the cache asks the store for keys changed since its last look (an indexed query on
 * `updated_at`), so a key created or revoked by the CLI, the console or another instance counts within a second.
 * A secret the cache does not know is looked up once in the store before being refused, so a brand-new key
 * works at once on the instance that made it and at worst after one lookup elsewhere.
 */
export class KeyCache {
  private readonly byHash = new Map<string, KeyRecord>()
  private readonly byId = new Map<string, string>()
  private lastSync = 0
  private timer: ReturnType<typeof setInterval> | undefined

  constructor(private readonly repository: KeyRepository, private readonly pollMs = 500) {}

  async start(): Promise<void> {
    await this.refresh()
    this.timer = setInterval(() => void this.refresh().catch(() => {}), this.pollMs)
    this.timer.unref?.()
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

  /** Apply a change made by this process straight away (revocation from the console, say). */
  remember(key: KeyRecord): void {
    const previousHash = this.byId.get(key.id)
    if (previousHash !== undefined && previousHash !== key.hash) this.byHash.delete(previousHash)
    this.byHash.set(key.hash, key)
    this.byId.set(key.id, key.hash)
  }
}
