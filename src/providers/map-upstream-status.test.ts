import { expect, test } from 'bun:test'
import { decodeAnthropicStreamError } from './anthropic/decode-error.ts'
import { decodeGeminiError } from './gemini/decode-error.ts'
import { mapUpstreamStatus, upstreamRefusedCredentials } from './map-upstream-status.ts'
import { scrubUpstreamText } from './scrub-upstream-text.ts'

test('an upstream refusing our credentials, as a status or as an error event mid-stream: a fixed 502 message, its text for the log only', () => {
  const said = 'Invalid x-api-key: ****abc123 (for key ab12****)'
  for (const failure of [
    mapUpstreamStatus(401, said),
    mapUpstreamStatus(403, said),
    decodeAnthropicStreamError(JSON.stringify({ type: 'error', error: { type: 'authentication_error', message: said } })),
    decodeGeminiError(
      403,
      JSON.stringify({
        error: {
          code: 403,
          message: said,
          status: 'PERMISSION_DENIED',
          details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '3s' }],
        },
      }),
    ),
  ]) {
    expect(failure.status).toBe(502)
    expect(failure.code).toBe('upstream_auth')
    expect(failure.message).toBe(upstreamRefusedCredentials)
    expect(failure.logDetail).toContain('Invalid x-api-key: [redacted] (for key [redacted])')
    expect(failure.logDetail).not.toContain('abc123')
  }
})

test('what stands beside a run of asterisks is taken for a masked key and removed; prose keeps its words', () => {
  expect(scrubUpstreamText('key ****abc123 refused; sk-ab***yz too; a*b stays, 2**10 stays')).toBe(
    'key [redacted] refused; [redacted] too; a*b stays, 2**10 stays',
  )
})
