import { RedisClient } from 'bun'
import type { Logger } from '../../core/logger.ts'
import { countBackgroundFailure, isBug, messageOf } from '../../core/background-failures.ts'
import { reportFailure } from '../../core/report-failure.ts'

/** Commands waiting with no answer at all for this long mean a stalled Redis: the connection is dropped (and redialled). */
const stallMs = 250
/** Reconnection attempts back off from the first to the last, then keep trying at the last forever. */
const reconnectDelaysMs = [100, 250, 500, 1000, 2000]

/**
 * The gateway's connection to Redis, and whether it is usable now. Every shared-state user asks `up` first and
 * keeps its state in this process while it is false, so Redis being down costs limits their sharing, never a
 * request. Reconnects by itself (Bun's own reconnection gives up after a few tries; this never does), logs each
 * change once, and drops the connection when commands wait `stallMs` without any answer (a stalled server), which
 * fails them: their requests go on with local limits. One watchdog timer for all commands, not a timer each.
 *
 * Two connections: commands and scripts on one, pub/sub on the other (a subscribed connection takes no commands).
 */
export class RedisLink {
  private readonly commands: RedisClient
  private readonly listener: RedisClient
  private readonly channels = new Map<string, (message: string) => void>()
  private readonly scriptShas = new Map<string, string>()
  private closed = false
  private retries = 0
  private reconnecting: ReturnType<typeof setTimeout> | undefined
  private listening = false
  private lastWarning = 0
  private pending = 0
  /** Answers so far, and their count at the watchdog's last look: no progress with commands pending is a stall. */
  private answered = 0
  private answeredAtLastLook = 0
  private pendingAtLastLook = 0
  private readonly watchdog: ReturnType<typeof setInterval>
  private readonly settle = () => {
    this.pending--
    this.answered++
  }
  /** Whether a command connection is open: `/metrics` and `/status` show it. */
  up = false
  /** Times Redis was found gone since start. */
  outages = 0

  constructor(
    readonly url: string,
    private readonly logger: Logger,
  ) {
    const options = { autoReconnect: false, enableOfflineQueue: false, connectionTimeout: 1000 }
    this.commands = new RedisClient(url, options)
    this.listener = new RedisClient(url, options)
    this.commands.onclose = () => this.lost()
    this.listener.onclose = () => this.lost()
    this.watchdog = setInterval(() => this.checkProgress(), stallMs)
    this.watchdog.unref?.()
  }

  /** Connect once; if Redis is not there, start anyway (in local mode) and keep trying in the background. */
  async start(): Promise<void> {
    await this.connect()
  }

  close(): void {
    this.closed = true
    clearTimeout(this.reconnecting)
    clearInterval(this.watchdog)
    this.commands.onclose = null
    this.listener.onclose = null
    this.commands.close()
    this.listener.close()
    this.up = false
  }

  /** Run a command; rejects when Redis is down, answers an error, or does not answer in time. */
  send(command: string, args: string[]): Promise<unknown> {
    if (!this.up) return Promise.reject(new Error('redis is not connected'))
    this.pending++
    const answer = this.commands.send(command, args)
    answer.then(this.settle, this.settle)
    return answer
  }

  private checkProgress(): void {
    // Pending at two looks in a row with no answer between: some command has waited a whole `stallMs`.
    const stalled = this.pending > 0 && this.pendingAtLastLook > 0 && this.answered === this.answeredAtLastLook
    this.answeredAtLastLook = this.answered
    this.pendingAtLastLook = this.pending
    if (!stalled || !this.up) return
    this.logger.warn({ pending: this.pending, stall_ms: stallMs }, 'redis stopped answering: dropping the connection and redialling')
    this.commands.close() // fails the commands waiting; onclose starts the reconnection
  }

  /** Make a script known before its first use: it is loaded at every (re)connection. */
  register(source: string): void {
    this.shaOf(source)
  }

  /** Run a Lua script by its SHA1, loading it first when Redis does not know it (after a restart, say). */
  async script(source: string, keys: string[], args: string[]): Promise<unknown> {
    const sha = this.shaOf(source)
    try {
      return await this.send('EVALSHA', [sha, String(keys.length), ...keys, ...args])
    } catch (error) {
      if (!String((error as Error).message).includes('NOSCRIPT')) throw error
      return await this.send('EVAL', [source, String(keys.length), ...keys, ...args])
    }
  }

  /** Fire and forget: a lost message is made up for by whatever the receivers poll. */
  publish(channel: string, message: string): void {
    if (!this.up) return
    this.send('PUBLISH', [channel, message]).catch((error) => this.failed(error))
  }

  /** Call `handler` for every message on `channel`, from now on and again after each reconnection. */
  subscribe(channel: string, handler: (message: string) => void): void {
    this.channels.set(channel, handler)
    if (this.listening) void this.listener.subscribe(channel, handler).catch((error) => this.failed(error))
  }

  /** A command failed: logged (without the URL, which may hold a password); a dead connection also flips `up`. */
  failed(error: unknown): void {
    countBackgroundFailure('redis command')
    if (isBug(error)) {
      reportFailure(this.logger, error, { route: 'redis' })
      return
    }
    if (!this.commands.connected) {
      this.lost()
      return
    }
    // Connected but failing (a stalled server, say): once per ten seconds is enough to tell the operator.
    const now = Date.now()
    if (now - this.lastWarning < 10_000) return
    this.lastWarning = now
    this.logger.warn({ err: messageOf(error) }, 'redis command failed; falling back to this instance alone for it')
  }

  private async connect(): Promise<void> {
    try {
      if (!this.commands.connected) await this.commands.connect()
      if (!this.listener.connected) {
        this.listening = false
        await this.listener.connect()
      }
      if (!this.listening) {
        for (const [channel, handler] of this.channels) await this.listener.subscribe(channel, handler)
        this.listening = true
      }
    } catch (error) {
      this.lost(error)
      return
    }
    if (this.closed) return
    // Scripts are loaded before the first request uses them: a NOSCRIPT retry would reorder a script behind later ones.
    for (const source of this.scriptShas.keys()) await this.commands.send('SCRIPT', ['LOAD', source]).catch((error) => this.lost(error))
    if (!this.commands.connected) return
    if (!this.up && this.outages > 0) this.logger.info({ after_retries: this.retries }, 'redis is back: limits are shared again')
    else if (!this.up) this.logger.info({}, 'redis connected: limits, sign-in throttle and route health are shared by every instance')
    this.up = true
    this.retries = 0
  }

  /** Redis is gone (or a connection of ours is): state goes local, and reconnection starts unless it is under way. */
  private lost(error?: unknown): void {
    if (this.closed) return
    if (this.up) {
      this.outages++
      this.logger.warn(
        { err: error === undefined ? undefined : (error as Error).message },
        'redis unreachable: limits, sign-in throttle and route health fall back to this instance alone until it is back',
      )
    } else if (this.outages === 0 && this.retries === 0) {
      this.outages++
      this.logger.warn(
        { err: error === undefined ? undefined : (error as Error).message },
        'redis unreachable at start: using per-instance limits until it answers',
      )
    }
    this.up = false
    this.listening = this.listening && this.listener.connected
    if (this.reconnecting !== undefined) return
    const delay = reconnectDelaysMs[Math.min(this.retries++, reconnectDelaysMs.length - 1)]!
    this.reconnecting = setTimeout(() => {
      this.reconnecting = undefined
      this.connect().catch((failure) => reportFailure(this.logger, failure, { route: 'redis reconnect' }))
    }, delay)
    this.reconnecting.unref?.()
  }

  private shaOf(source: string): string {
    let sha = this.scriptShas.get(source)
    if (sha === undefined) {
      sha = new Bun.CryptoHasher('sha1').update(source).digest('hex')
      this.scriptShas.set(source, sha)
    }
    return sha
  }
}
