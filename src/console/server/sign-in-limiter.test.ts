import { expect, test } from 'bun:test'
import { MemoryFailureLog } from '../../domain/failure-log.ts'
import { SignInLimiter } from './sign-in-limiter.ts'

// Times are passed in explicitly: the limiter's arithmetic is checked without waiting for any clock.
const minute = 60_000

test('five failures for a name from one address block that address for the name until the oldest ages out', async () => {
  const limiter = new SignInLimiter()
  for (let attempt = 0; attempt < 5; attempt++) await limiter.recordFailure('Alice', '10.0.0.1', true, attempt * minute)
  expect(await limiter.retryAfter('alice', '10.0.0.1', 5 * minute)).toBe(10 * 60) // the first failure leaves the window at 15 min
  expect(await limiter.retryAfter('alice', '10.0.0.1', 15 * minute + 1)).toBe(0)
})

test('failures from anyone never refuse the right user from an address that has not failed on the name', async () => {
  const limiter = new SignInLimiter()
  // An attacker spread over many addresses throws 200 wrong passwords at the admin's name, again and again.
  for (let attempt = 0; attempt < 200; attempt++) await limiter.recordFailure('admin', `203.0.113.${attempt % 50}`, true, attempt * 1000)
  expect(await limiter.retryAfter('admin', '198.51.100.7', 200 * 1000)).toBe(0)
  // The attacker's own addresses are slowed on that name (per-name backoff), up to the window's length.
  expect(await limiter.retryAfter('admin', '203.0.113.1', 200 * 1000)).toBeGreaterThan(60)
})

test('the per-name backoff starts at the fifth failure and doubles with each further one', async () => {
  const limiter = new SignInLimiter()
  for (let attempt = 0; attempt < 4; attempt++) await limiter.recordFailure('bob', `10.0.0.${attempt}`, true, 0)
  expect(await limiter.retryAfter('bob', '10.0.0.1', 0)).toBe(0)
  await limiter.recordFailure('bob', '10.0.0.9', true, 0)
  expect(await limiter.retryAfter('bob', '10.0.0.1', 0)).toBe(1)
  await limiter.recordFailure('bob', '10.0.0.9', true, 0)
  await limiter.recordFailure('bob', '10.0.0.9', true, 0)
  expect(await limiter.retryAfter('bob', '10.0.0.1', 0)).toBe(4)
})

test('one address spraying many names is blocked after four times the per-name limit, and then stores nothing more', async () => {
  const log = new MemoryFailureLog()
  const limiter = new SignInLimiter(log)
  for (let attempt = 0; attempt < 500; attempt++) await limiter.recordFailure(`user${attempt}`, '192.0.2.1', false, 0)
  expect(await limiter.retryAfter('fresh-name', '192.0.2.1', 1)).toBeGreaterThan(0)
  expect(await limiter.retryAfter('fresh-name', '192.0.2.2', 1)).toBe(0)
  expect(log.memories.unknown.size).toBe(40) // twenty failures: a pair and a name each
})

test("a success clears that address's count for the name but not the address's own", async () => {
  const limiter = new SignInLimiter(undefined, { maxFailures: 2 })
  await limiter.recordFailure('bob', 'a', true, 0)
  await limiter.recordFailure('bob', 'a', true, 0)
  expect(await limiter.retryAfter('bob', 'a', 1)).toBeGreaterThan(0)
  await limiter.recordSuccess('bob', 'a')
  expect(await limiter.retryAfter('bob', 'a', 1)).toBe(0)
  for (let attempt = 0; attempt < 20; attempt++) await limiter.recordFailure(`x${attempt}`, 'a', false, 0)
  await limiter.recordSuccess('x0', 'a')
  expect(await limiter.retryAfter('someone', 'a', 1)).toBeGreaterThan(0)
})

test("a flood of invented names from many addresses cannot flush the admin's count", async () => {
  const log = new MemoryFailureLog(100)
  const limiter = new SignInLimiter(log)
  for (let attempt = 0; attempt < 5; attempt++) await limiter.recordFailure('admin', '10.0.0.66', true, 0)
  for (let attempt = 0; attempt < 5000; attempt++)
    await limiter.recordFailure(`invented-${attempt}`, `10.1.${attempt >> 8}.${attempt & 255}`, false, 1)
  expect(await limiter.retryAfter('admin', '10.0.0.66', 2)).toBeGreaterThan(0)
  expect(log.memories.unknown.size).toBeLessThanOrEqual(100)
  expect(log.memories.address.size).toBeLessThanOrEqual(100)
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

test('names and addresses are kept as short hashes, however long the text sent; an unlock still reaches every address', async () => {
  const log = new MemoryFailureLog()
  const limiter = new SignInLimiter(log, { maxFailures: 2 })
  const long = 'n'.repeat(256)
  for (const address of ['10.0.0.1', `2001:db8::${'f'.repeat(200)}`]) {
    await limiter.recordFailure(long, address, false, 0)
    await limiter.recordFailure(long, address, false, 0)
    expect(await limiter.retryAfter(long.toUpperCase(), address, 1)).toBeGreaterThan(0)
  }
  const keys = Object.values(log.memories).flatMap((memory) => [...(memory as unknown as { times: Map<string, number[]> }).times.keys()])
  expect(keys.length).toBe(5) // a pair and an address per address, one name
  for (const key of keys) expect(key.length).toBeLessThan(64)
  await limiter.clear(long)
  for (const address of ['10.0.0.1', `2001:db8::${'f'.repeat(200)}`]) expect(await limiter.retryAfter(long, address, 1)).toBe(0)
})
