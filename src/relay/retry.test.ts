import { expect, test } from 'bun:test'
import { decodeOpenAiError } from '../providers/openai/decode-error.ts'
import { GatewayError } from '../core/errors.ts'
import { backoffMs, isRetryable } from './retry.ts'
import { sleep } from '../core/sleep.ts'

test("upstream trouble is retried, the client's own mistakes are not", () => {
  const retried = [429, 500, 502, 503, 504, 529, 401].map((status) => isRetryable(decodeOpenAiError(status, '{"error":{"message":"x"}}')))
  expect(retried).toEqual([true, true, true, true, true, true, true])
  const refused = [400, 404, 413, 422].map((status) => isRetryable(decodeOpenAiError(status, '{"error":{"message":"x"}}')))
  expect(refused).toEqual([false, false, false, false])
  expect(isRetryable(new GatewayError('upstream', 'gone', { code: 'client_closed', status: 499 }))).toBe(false)
  expect(isRetryable(new GatewayError('timeout', 'slow', { code: 'first_byte_timeout' }))).toBe(true)
})

test('backoff doubles per retry up to the cap, with full jitter', () => {
  const routing = { backoffMs: 100, backoffMaxMs: 1000 }
  expect([1, 2, 3, 4, 5].map((retry) => backoffMs(retry, routing, () => 1))).toEqual([100, 200, 400, 800, 1000])
  expect(backoffMs(3, routing, () => 0)).toBe(0)
  expect(backoffMs(0, routing, () => 1)).toBe(0)
})

test('a wait ends at once when the client leaves', async () => {
  const controller = new AbortController()
  const waiting = sleep(60_000, controller.signal)
  controller.abort()
  await expect(waiting).rejects.toMatchObject({ status: 499, code: 'client_closed' })
})
