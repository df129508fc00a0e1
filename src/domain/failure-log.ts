/**
 * Which memory a failure is kept in. Failures for names that exist are kept apart from those for invented names, and
 * per-address counts apart from both, so that a flood of one kind can never push out another (an attacker inventing
 * thousands of names must not make the gateway forget how often the admin's name was guessed).
 */
export type FailureKind = 'known' | 'unknown' | 'address'

export interface FailureEntry {
  key: string
  kind: FailureKind
}

/** Failure times per key (sign-in throttle): in this process, or in Redis shared by every instance (db/redis). */
export interface FailureLog {
  /** Each key's failure times after `since`, oldest first (at most `maxPerKey` of the newest). */
  read(keys: string[], since: number): Promise<number[][]>
  add(entries: FailureEntry[], at: number, windowMs: number): Promise<void>
  clear(key: string): Promise<void>
  /** Forget every key starting with `prefix` (an admin unlocking a name: its count from every address). */
  clearPrefix(prefix: string): Promise<void>
}

/** The newest failures a key keeps: enough for any limit and backoff, however long a name is attacked. */
export const maxPerKey = 64

/** A Map of keys to failure times that holds at most `max` keys, forgetting the least recently failed first. */
class BoundedTimes {
  private readonly times = new Map<string, number[]>()

  constructor(private readonly max: number) {}

  get size(): number {
    return this.times.size
  }

  read(key: string, since: number): number[] {
    return (this.times.get(key) ?? []).filter((time) => time > since)
  }

  add(key: string, at: number, since: number): void {
    const times = this.read(key, since)
    times.push(at)
    if (times.length > maxPerKey) times.splice(0, times.length - maxPerKey)
    this.times.delete(key) // re-inserted last: Map order is then least recently failed first
    this.times.set(key, times)
    if (this.times.size > this.max) {
      let excess = this.times.size - Math.floor(this.max * 0.9)
      for (const old of this.times.keys()) {
        if (excess-- <= 0) break
        this.times.delete(old)
      }
    }
  }

  clear(key: string): void {
    this.times.delete(key)
  }

  clearPrefix(prefix: string): void {
    for (const key of [...this.times.keys()]) if (key.startsWith(prefix)) this.times.delete(key)
  }
}

/** Failure times in this process: one bounded memory per kind. */
export class MemoryFailureLog implements FailureLog {
  readonly memories: Record<FailureKind, BoundedTimes>

  constructor(maxTracked = 10_000) {
    this.memories = { known: new BoundedTimes(maxTracked), unknown: new BoundedTimes(maxTracked), address: new BoundedTimes(maxTracked) }
  }

  /** Address keys start with `address:`; any other key is a name's or a name-and-address's. */
  readNow(keys: string[], since: number): number[][] {
    return keys.map((key) => {
      if (key.startsWith('address:')) return this.memories.address.read(key, since)
      // A name's failures may sit in both (a user created after its name was guessed): read them as one.
      const known = this.memories.known.read(key, since)
      const unknown = this.memories.unknown.read(key, since)
      return unknown.length === 0 ? known : known.length === 0 ? unknown : [...known, ...unknown].sort((a, b) => a - b)
    })
  }

  async read(keys: string[], since: number): Promise<number[][]> {
    return this.readNow(keys, since)
  }

  async add(entries: FailureEntry[], at: number, windowMs: number): Promise<void> {
    for (const { key, kind } of entries) this.memories[kind].add(key, at, at - windowMs)
  }

  async clear(key: string): Promise<void> {
    for (const memory of Object.values(this.memories)) memory.clear(key)
  }

  async clearPrefix(prefix: string): Promise<void> {
    for (const memory of Object.values(this.memories)) memory.clearPrefix(prefix)
  }
}
