import { describe, expect, test } from 'bun:test'
import { signWebhook, verifyWebhook } from './webhook-signature.ts'

const body = '{"event":"budget.threshold","percent":80}'
const secret = 'whsec_test'
const sent = 1_700_000_000

describe('webhook signatures', () => {
  test('the header is t=<unix>,v1=<HMAC-SHA256 of "t.body">, as any HMAC tool computes it', () => {
    // printf '1700000000.{"event":…}' | openssl dgst -sha256 -hmac whsec_test
    expect(signWebhook(body, secret, sent)).toBe('t=1700000000,v1=9052e0d744809bfdf54bd479b979695bded7ca6d25db2e034cde71991fa04fa5')
    expect(signWebhook(new TextEncoder().encode(body), secret, sent)).toBe(signWebhook(body, secret, sent))
  })

  test('a genuine delivery verifies within the window, either side of the receiver clock', () => {
    const header = signWebhook(body, secret, sent)
    expect(verifyWebhook(header, body, secret, sent)).toEqual({ valid: true, timestamp: sent })
    expect(verifyWebhook(header, body, secret, sent + 300).valid).toBe(true)
    expect(verifyWebhook(header, body, secret, sent - 300).valid).toBe(true)
    expect(verifyWebhook(header, body, secret, sent + 30, 60).valid).toBe(true)
  })

  test('a replay outside the window is refused, saying so', () => {
    const header = signWebhook(body, secret, sent)
    expect(verifyWebhook(header, body, secret, sent + 301)).toEqual({
      valid: false,
      reason: 'the timestamp is 301 s from now, outside the 300 s window',
    })
    expect(verifyWebhook(header, body, secret, sent + 61, 60).valid).toBe(false)
  })

  test('a changed body, secret or timestamp breaks the signature', () => {
    const header = signWebhook(body, secret, sent)
    const refused = { valid: false as const, reason: 'no signature matches the body and secret' }
    expect(verifyWebhook(header, body.replace('80', '50'), secret, sent)).toEqual(refused)
    expect(verifyWebhook(header, body, 'whsec_other', sent)).toEqual(refused)
    expect(verifyWebhook(header.replace('t=1700000000', 't=1700000001'), body, secret, sent)).toEqual(refused)
    expect(verifyWebhook(header.slice(0, -2), body, secret, sent)).toEqual(refused) // a truncated signature
  })

  test('during a secret rotation a delivery carries one signature per secret; either secret verifies it', () => {
    const header = signWebhook(body, ['whsec_new', 'whsec_old'], sent)
    expect(header.split(',').filter((item) => item.startsWith('v1=')).length).toBe(2)
    expect(verifyWebhook(header, body, 'whsec_old', sent).valid).toBe(true)
    expect(verifyWebhook(header, body, 'whsec_new', sent).valid).toBe(true)
    expect(verifyWebhook(signWebhook(body, 'whsec_old', sent), body, ['whsec_new', 'whsec_old'], sent).valid).toBe(true)
  })

  test('malformed headers are refused with the reason; unknown schemes are skipped', () => {
    expect(verifyWebhook(undefined, body, secret, sent)).toEqual({
      valid: false,
      reason: 'no timestamp (t=) in the Tollgate-Signature header',
    })
    expect(verifyWebhook('v1=abcd', body, secret, sent).valid).toBe(false)
    expect(verifyWebhook('t=1700000000', body, secret, sent)).toEqual({
      valid: false,
      reason: 'no v1 signature in the Tollgate-Signature header',
    })
    expect(verifyWebhook('t=1700000000,v1=not-hex', body, secret, sent).valid).toBe(false)
    expect(verifyWebhook('t=-5,v1=00', body, secret, sent).valid).toBe(false)
    const withFuture = `${signWebhook(body, secret, sent)},v2=abcdef`
    expect(verifyWebhook(withFuture, body, secret, sent).valid).toBe(true)
  })
})
