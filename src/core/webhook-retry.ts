/**
 * When a failed webhook delivery is tried again: exponential backoff (10 s, 20 s, 40 s … capped at an hour) with
 * jitter, so receivers coming back from an outage are not hit by every gateway's retries in the same second, and
 * giving up once a day has passed since the first attempt — long enough to ride out a night's outage, short
 * enough that an alert still means something when it lands. Pure: the caller passes the random number and times.
 */

export interface RetryPolicy {
  firstDelayMs: number
  factor: number
  maxDelayMs: number
  /** No attempt is scheduled later than this after the first. */
  giveUpAfterMs: number
}

export const defaultRetryPolicy: RetryPolicy = Object.freeze({
  firstDelayMs: 10_000,
  factor: 2,
  maxDelayMs: 3_600_000,
  giveUpAfterMs: 86_400_000,
})

export interface FailedAttempt {
  /** 1 for the first delivery attempt. */
  attempt: number
  firstAttemptAt: number
  failedAt: number
  /** What the receiver asked for with Retry-After, in milliseconds, if anything (honoured up to the cap). */
  retryAfterMs?: number
}

/**
 * The time of the next attempt, or undefined to give up. `random` is in [0, 1): the delay is between half and all
 * of the backoff ("equal jitter"), never near zero, so a string of quick failures cannot turn into a hammering.
 */
export function nextAttemptAt(failure: FailedAttempt, random: number, policy: RetryPolicy = defaultRetryPolicy): number | undefined {
  const backoff = Math.min(policy.maxDelayMs, policy.firstDelayMs * policy.factor ** (failure.attempt - 1))
  const jittered = backoff / 2 + (backoff / 2) * Math.min(Math.max(random, 0), 1)
  const delay = Math.min(policy.maxDelayMs, Math.max(jittered, failure.retryAfterMs ?? 0))
  const next = Math.round(failure.failedAt + delay)
  return next - failure.firstAttemptAt > policy.giveUpAfterMs ? undefined : next
}

/** A 2xx answer is a delivery; anything else (errors, redirects, which are never followed) is tried again. */
export function isDelivered(status: number): boolean {
  return status >= 200 && status < 300
}
