import { expect, test } from 'bun:test'
import { BackgroundJob, renderBackgroundFailures } from './background-failures.ts'
import type { Logger } from './logger.ts'

function recordingLogger() {
  const lines: { level: string; fields: Record<string, unknown>; message: string }[] = []
  const logger: Logger = {
    info: (fields, message) => lines.push({ level: 'info', fields, message }),
    warn: (fields, message) => lines.push({ level: 'warn', fields, message }),
    error: (fields, message) => lines.push({ level: 'error', fields, message }),
  }
  return { logger, lines }
}

test('a run of failures is logged once, its end once, and every failure is counted on /metrics', () => {
  const { logger, lines } = recordingLogger()
  const job = new BackgroundJob(logger, 'test heartbeat', 'nothing is released meanwhile')
  expect(renderBackgroundFailures()).toContain('tollgate_background_failures_total{job="test heartbeat"} 0')
  for (let index = 0; index < 3; index++) job.failed(new Error('connection refused'))
  expect(lines).toEqual([
    {
      level: 'warn',
      fields: { job: 'test heartbeat', err: 'connection refused' },
      message: 'test heartbeat failed: nothing is released meanwhile',
    },
  ])
  job.succeeded()
  job.succeeded()
  expect(lines.slice(1)).toEqual([{ level: 'info', fields: { job: 'test heartbeat', failures: 3 }, message: 'test heartbeat works again' }])
  expect(renderBackgroundFailures()).toContain('tollgate_background_failures_total{job="test heartbeat"} 3')
})

test('a bug is logged with its stack, not as an outage', () => {
  const { logger, lines } = recordingLogger()
  new BackgroundJob(logger, 'test poll', 'stale').failed(new TypeError('undefined is not a function'))
  expect(lines).toHaveLength(1)
  expect(lines[0]!.level).toBe('error')
  expect(lines[0]!.fields.stack).toContain('TypeError: undefined is not a function')
})
