import { type FailureEntry, type FailureLog, maxPerKey, MemoryFailureLog } from '../../domain/failure-log.ts'
import type { RedisLink } from './link.ts'

/**
 * Sign-in failures in Redis, shared by every instance: one sorted set of failure times per key, trimmed to the newest
 * `maxPerKey` and expiring with the window (Redis forgets them by itself; there is nothing to flush). While Redis is
 * unreachable the counts go to this process's memory, and are read from there, until it is back.
 */
export class RedisFailureLog implements FailureLog {
  constructor(
    private readonly link: RedisLink,
    private readonly local = new MemoryFailureLog(),
  ) {}

  async read(keys: string[], since: number): Promise<number[][]> {
    if (!this.link.up) return this.local.read(keys, since)
    try {
      const replies = await Promise.all(keys.map((key) => this.link.send('ZRANGE', [redisKey(key), `(${since}`, '+inf', 'BYSCORE'])))
      return (replies as string[][]).map((members) => members.map(timeOf))
    } catch (error) {
      this.link.failed(error)
      return this.local.read(keys, since)
    }
  }

  async add(entries: FailureEntry[], at: number, windowMs: number): Promise<void> {
    if (!this.link.up) return this.local.add(entries, at, windowMs)
    try {
      const member = `${at}:${crypto.randomUUID().slice(0, 8)}` // two failures in one millisecond are two
      await Promise.all(
        entries.flatMap(({ key }) => [
          this.link.send('ZADD', [redisKey(key), String(at), member]),
          this.link.send('ZREMRANGEBYRANK', [redisKey(key), '0', String(-maxPerKey - 1)]),
          this.link.send('PEXPIRE', [redisKey(key), String(windowMs)]),
        ]),
      )
    } catch (error) {
      this.link.failed(error)
      await this.local.add(entries, at, windowMs)
    }
  }

  async clear(key: string): Promise<void> {
    await this.local.clear(key)
    if (!this.link.up) return
    await this.link.send('DEL', [redisKey(key)]).catch((error) => this.link.failed(error))
  }

  /** SCAN (never KEYS, which blocks Redis) for the prefix's keys, then DEL them; glob characters in names match literally. */
  async clearPrefix(prefix: string): Promise<void> {
    await this.local.clearPrefix(prefix)
    if (!this.link.up) return
    try {
      const pattern = `${redisKey(prefix).replace(/[*?[\]\\]/g, '\\$&')}*`
      let cursor = '0'
      do {
        const [next, keys] = (await this.link.send('SCAN', [cursor, 'MATCH', pattern, 'COUNT', '500'])) as [string, string[]]
        if (keys.length > 0) await this.link.send('DEL', keys)
        cursor = next
      } while (cursor !== '0')
    } catch (error) {
      this.link.failed(error)
    }
  }
}

function redisKey(key: string): string {
  return `tollgate:sign-in:${key}`
}

function timeOf(member: string): number {
  return Number(member.slice(0, member.indexOf(':')))
}
