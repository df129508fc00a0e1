import { expect, test } from 'bun:test'
import type { ProviderConfig } from '../config/types.ts'
import { GatewayError } from '../core/errors.ts'
import { ConnectionFailed, RequestBodyFailed } from './http1-client.ts'
import { upstreamFailure } from './upstream-body.ts'

const provider = { name: 'up' } as ProviderConfig
const live = new AbortController().signal

test('a network failure is an unreachable upstream (503), whichever client met it', () => {
  const refused = Object.assign(new TypeError('Unable to connect'), { code: 'ECONNREFUSED' }) // fetch's shape
  for (const error of [refused, new ConnectionFailed('The upstream closed the connection before answering')]) {
    expect(upstreamFailure(provider, error, live)).toMatchObject({
      kind: 'upstream_unavailable',
      status: 503,
      code: 'upstream_unreachable',
    })
  }
})

test('a TypeError no network explains is our bug: an internal error that keeps it, for the log', () => {
  const bug = new TypeError("Cannot read properties of undefined (reading 'status')")
  const failure = upstreamFailure(provider, bug, live)
  expect(failure).toMatchObject({ kind: 'internal', status: 500 })
  expect(failure.cause).toBe(bug)
})

test('a request body that failed to read (a spooled upload gone short) is ours to log, not an unreachable upstream', () => {
  const shrank = new RequestBodyFailed('The request body failed to read: ENOENT', {
    cause: Object.assign(new Error('ENOENT'), { code: 'ENOENT' }),
  })
  const failure = upstreamFailure(provider, shrank, live)
  expect(failure).toMatchObject({ kind: 'internal', status: 500 })
  expect(failure.cause).toBe(shrank)
})

test('after an abort the abort decides: its own reason, or the client that left', () => {
  const timers = new AbortController()
  const timeout = new GatewayError('timeout', 'too slow')
  timers.abort(timeout)
  expect(upstreamFailure(provider, new TypeError('read cancelled'), timers.signal)).toBe(timeout)
  const client = new AbortController()
  client.abort()
  expect(upstreamFailure(provider, new TypeError('read cancelled'), client.signal)).toMatchObject({ code: 'client_closed' })
})
