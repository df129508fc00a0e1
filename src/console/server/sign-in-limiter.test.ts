import { expect, test } from 'bun:test'
import { SignInLimiter } from './sign-in-limiter.ts'

// Times are passed in explicitly: the limiter's arithmetic is checked without waiting for any clock.
const minute = 60_000

test('five failures for a name block it until the oldest ages out of the window, whatever the address', () => {
  const limiter = new SignInLimiter(5, 15 * minute)
  for (let attempt = 0; attempt < 5; attempt++) limiter.recordFailure('Alice', `10.0.0.${attempt}`, attempt * minute)
  expect(limiter.retryAfter('alice', '10.9.9.9', 5 * minute)).toBe(10 * 60) // the first failure leaves the window at 15 min
  expect(limiter.retryAfter('alice', '10.9.9.9', 15 * minute + 1)).toBe(0)
})

test('one address spraying many names is blocked after four times the per-name limit', () => {
  const limiter = new SignInLimiter(5, 15 * minute)
  for (let attempt = 0; attempt < 20; attempt++) limiter.recordFailure(`user${attempt}`, '192.0.2.1', 0)
  expect(limiter.retryAfter('fresh-name', '192.0.2.1', 1)).toBeGreaterThan(0)
  expect(limiter.retryAfter('fresh-name', '192.0.2.2', 1)).toBe(0)
})

test('a success clears the name but not the address', () => {
  const limiter = new SignInLimiter(2, 15 * minute)
  limiter.recordFailure('bob', 'a', 0)
  limiter.recordFailure('bob', 'a', 0)
  expect(limiter.retryAfter('bob', 'b', 1)).toBeGreaterThan(0)
  limiter.recordSuccess('bob')
  expect(limiter.retryAfter('bob', 'b', 1)).toBe(0)
  for (let attempt = 0; attempt < 6; attempt++) limiter.recordFailure(`x${attempt}`, 'a', 0)
  limiter.recordSuccess('x0')
  expect(limiter.retryAfter('someone', 'a', 1)).toBeGreaterThan(0)
})

test('memory stays bounded under a flood of invented names', () => {
  const limiter = new SignInLimiter(5, 15 * minute, 100)
  for (let attempt = 0; attempt < 1000; attempt++) limiter.recordFailure(`invented-${attempt}`, 'flood', attempt)
  expect((limiter as unknown as { failures: Map<string, number[]> }).failures.size).toBeLessThanOrEqual(100)
})

test('password checks in flight are capped per address and in total', () => {
  const limiter = new SignInLimiter()
  expect(limiter.begin('a')).toBe(true)
  expect(limiter.begin('a')).toBe(true)
  expect(limiter.begin('a')).toBe(false) // a third at once from the same address waits
  limiter.end('a')
  expect(limiter.begin('a')).toBe(true)
  for (const address of ['b', 'c', 'd']) expect(limiter.begin(address) && limiter.begin(address)).toBe(true)
  expect(limiter.begin('e')).toBe(false) // eight hashes already running
})
