import { expect, test } from 'bun:test'
import { AttemptController } from './attempt-controller.ts'

test("an attempt's abort tells its watcher once, with the reason, and its signal aborts as any controller's does", () => {
  const attempt = new AttemptController()
  const told: unknown[] = []
  const heard: unknown[] = []
  attempt.signal.addEventListener('abort', () => heard.push(attempt.signal.reason))
  attempt.watch({ attemptAborted: (reason) => told.push(reason) })
  const reason = new Error('first byte timeout')
  attempt.abort(reason)
  attempt.abort(new Error('later'))
  expect(told).toEqual([reason])
  expect(heard).toEqual([reason])
  expect(attempt.signal.aborted).toBe(true)
  expect(attempt.reason).toBe(reason)
})

test('a signal first read after the abort is born aborted, with the same reason; no reason is an AbortError', () => {
  const attempt = new AttemptController()
  const reason = new Error('client closed')
  attempt.abort(reason)
  expect(attempt.signal.aborted).toBe(true)
  expect(attempt.signal.reason).toBe(reason)
  const bare = new AttemptController()
  bare.abort()
  expect(bare.aborted).toBe(true)
  expect((bare.reason as DOMException).name).toBe('AbortError')
  expect(bare.signal.reason).toBe(bare.reason)
  expect(() => bare.signal.throwIfAborted()).toThrow()
})

test('a watcher that stopped watching is not told; one that replaced it is left watching', () => {
  const attempt = new AttemptController()
  const told: string[] = []
  const first = { attemptAborted: () => told.push('first') }
  const second = { attemptAborted: () => told.push('second') }
  attempt.watch(first)
  attempt.unwatch(first)
  attempt.watch(second)
  attempt.unwatch(first)
  attempt.abort()
  expect(told).toEqual(['second'])
})
