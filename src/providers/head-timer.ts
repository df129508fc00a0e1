import type { GatewayCode } from '../core/error-codes.ts'
import type { ProviderConfig } from '../config/types.ts'
import { type Deadline, type DeadlineLane, laneOf } from '../core/deadlines.ts'
import { GatewayError } from '../core/errors.ts'
import { probeConnect, proxied } from './connect-probe.ts'

/**
 * The timer that runs until the response head comes (connect_ms, first_byte_ms, cut to total_ms): one object per
 * attempt, its own entry in the shared lane of its length (core/deadlines.ts) rather than a timer per request; the
 * rare second wait (after a connect probe) is a timer of its own.
 */
export class HeadTimer implements Deadline {
  readonly started = performance.now()
  readonly deadline: number
  /** Until when the head may take: first_byte_ms, cut to total_ms. */
  readonly headBy: number
  /** A connect probe is still to be tried when the timer fires. */
  probe: boolean
  answered = false
  /** The wait after a connect probe. */
  timer: ReturnType<typeof setTimeout> | undefined
  dueAt = 0
  lane: DeadlineLane | undefined
  laneNext: Deadline | undefined
  lanePrevious: Deadline | undefined

  constructor(
    readonly provider: ProviderConfig,
    readonly url: string,
    readonly attempt: AbortController,
  ) {
    const { connectMs, firstByteMs, totalMs } = provider.timeouts
    this.deadline = this.started + totalMs
    this.headBy = Math.min(firstByteMs, totalMs)
    this.probe = !proxied && connectMs < this.headBy
    laneOf(this.probe ? connectMs : this.headBy).add(this)
  }

  end(code: GatewayCode, message: string): void {
    this.attempt.abort(new GatewayError('timeout', `Upstream ${this.provider.name} ${message}`, { code }))
  }

  stop(): void {
    this.answered = true
    this.lane?.remove(this)
    if (this.timer) clearTimeout(this.timer)
  }

  expire(): void {
    fireHeadTimer(this)
  }
}

function fireHeadTimer(head: HeadTimer): void {
  head.timer = undefined
  if (head.answered) return
  const { connectMs, firstByteMs, totalMs } = head.provider.timeouts
  const elapsed = performance.now() - head.started
  if (!head.probe || elapsed >= head.headBy) {
    if (firstByteMs <= totalMs) head.end('first_byte_timeout', `sent no response within ${firstByteMs} ms`)
    else head.end('total_timeout', `did not finish within ${totalMs} ms`)
    return
  }
  head.probe = false
  void probeConnect(new URL(head.url), connectMs).then((reachable) => {
    if (!reachable && !head.answered) head.end('connect_timeout', `could not be connected to within ${connectMs} ms`)
  })
  head.timer = setTimeout(fireHeadTimer, head.headBy - elapsed, head)
}
