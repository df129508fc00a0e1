import { RedisClient } from 'bun'
import type { Logger } from '../../core/logger.ts'
import type { SharedStateHandle } from '../../domain/shared-state.ts'
import { reportFailure } from '../../core/report-failure.ts'
import { RedisFailureLog } from './failure-log.ts'
import { RedisLimiter } from './limiter.ts'
import { RedisLink } from './link.ts'
import { RedisRouteHealth } from './route-health.ts'

/**
 * Everything instances share through Redis (`redis:` in the config): key limits, the sign-in throttle, and
 * announcements (key changes, route health) on pub/sub channels. Built once by the composition root.
 */
export class SharedState implements SharedStateHandle {
  readonly link: RedisLink
  readonly limiter: RedisLimiter
  readonly signInFailures: RedisFailureLog
  /** Open routes and half-open probe slots, for instances starting late and probing once for all. */
  readonly routes: RedisRouteHealth
  /** Tags this instance's announcements, so it does not act on its own echo. */
  private readonly origin = crypto.randomUUID()

  constructor(
    url: string,
    private readonly logger: Logger,
  ) {
    this.link = new RedisLink(url, logger)
    this.limiter = new RedisLimiter(this.link)
    this.signInFailures = new RedisFailureLog(this.link)
    this.routes = new RedisRouteHealth(this.link)
  }

  get up(): boolean {
    return this.link.up
  }

  get outages(): number {
    return this.link.outages
  }

  /** Connects, or starts in per-instance mode and keeps trying: a gateway never waits on Redis to serve. */
  start(): Promise<void> {
    return this.link.start()
  }

  stop(): void {
    this.limiter.stop()
    this.link.close()
  }

  /** Tell the other instances; lost when Redis is down (their polling, or their own discovery, makes up for it). */
  announce(channel: string, payload: unknown): void {
    this.link.publish(`tollgate:${channel}`, JSON.stringify({ origin: this.origin, payload }))
  }

  /** Hear the other instances' announcements on `channel` (never this instance's own). */
  listen<T>(channel: string, handler: (payload: T) => void | Promise<void>): void {
    this.link.subscribe(`tollgate:${channel}`, (message) => {
      let parsed: { origin: string; payload: T }
      try {
        parsed = JSON.parse(message)
      } catch {
        this.logger.warn({ channel }, 'ignored a malformed message on a redis channel')
        return
      }
      if (parsed.origin === this.origin) return
      Promise.resolve()
        .then(() => handler(parsed.payload))
        .catch((error) => reportFailure(this.logger, error, { route: `redis ${channel}` }))
    })
  }
}

/** A short-lived process's line to the running instances (`tollgate key revoke`). */
export interface Announcer {
  /** Publish; false when Redis is unreachable (the instances then find the change at their next poll). */
  announce(channel: string, payload: unknown): Promise<boolean>
  close(): void
}

/**
 * Connect before the change is written, so that the announcement follows the write at once: connecting afterwards
 * added the connection's time (up to ~180 ms) to every instance's wait. Never throws: without Redis the change still
 * counts everywhere at the instances' next poll.
 */
export async function openAnnouncer(url: string): Promise<Announcer> {
  const client = new RedisClient(url, { autoReconnect: false, connectionTimeout: 1000 })
  const connected = await client.connect().then(
    () => true,
    () => false,
  )
  return {
    async announce(channel, payload) {
      if (!connected) return false
      try {
        await client.send('PUBLISH', [`tollgate:${channel}`, JSON.stringify({ origin: 'cli', payload })])
        return true
      } catch {
        return false
      }
    },
    close: () => client.close(),
  }
}
