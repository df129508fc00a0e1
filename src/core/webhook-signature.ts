/**
 * Signed webhook deliveries, in the scheme Stripe made familiar so receivers can reuse what they know: the header
 * `Tollgate-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`. Signing the timestamp with the body
 * lets a receiver refuse a captured delivery replayed later (the replay window, 5 minutes unless set). While a
 * secret is being rotated a delivery carries one v1 per secret, and a receiver accepts any that matches.
 * Comparisons are constant-time, so a forger learns nothing from how long a refusal took.
 */
import { createHmac, timingSafeEqual } from 'node:crypto'

export const signatureHeader = 'Tollgate-Signature'

/** How far a delivery's timestamp may be from the receiver's clock, either way. */
const defaultToleranceSeconds = 300

export type WebhookBody = string | Uint8Array

/** The header value for a delivery of `body` at `timestamp` (unix seconds), one v1 per secret. */
export function signWebhook(body: WebhookBody, secrets: string | readonly string[], timestamp: number): string {
  const signatures = [secrets].flat().map((secret) => `v1=${hmacOf(secret, timestamp, body).toString('hex')}`)
  return [`t=${timestamp}`, ...signatures].join(',')
}

export type Verification = { valid: true; timestamp: number } | { valid: false; reason: string }

/**
 * Whether a delivery is genuine and fresh. `now` is the receiver's clock in unix seconds. Schemes other than v1
 * are skipped (a later scheme can be added beside it without breaking receivers).
 */
export function verifyWebhook(
  header: string | null | undefined,
  body: WebhookBody,
  secrets: string | readonly string[],
  now: number,
  toleranceSeconds = defaultToleranceSeconds,
): Verification {
  const parsed = parseSignatureHeader(header ?? '')
  if (parsed.timestamp === undefined) return { valid: false, reason: `no timestamp (t=) in the ${signatureHeader} header` }
  if (parsed.signatures.length === 0) return { valid: false, reason: `no v1 signature in the ${signatureHeader} header` }
  if (Math.abs(now - parsed.timestamp) > toleranceSeconds) {
    return {
      valid: false,
      reason: `the timestamp is ${Math.abs(now - parsed.timestamp)} s from now, outside the ${toleranceSeconds} s window`,
    }
  }
  for (const secret of [secrets].flat()) {
    const expected = hmacOf(secret, parsed.timestamp, body)
    for (const signature of parsed.signatures) {
      if (signature.length === expected.length && timingSafeEqual(signature, expected)) return { valid: true, timestamp: parsed.timestamp }
    }
  }
  return { valid: false, reason: 'no signature matches the body and secret' }
}

function hmacOf(secret: string, timestamp: number, body: WebhookBody): Buffer {
  return createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest()
}

function parseSignatureHeader(header: string): { timestamp: number | undefined; signatures: Buffer[] } {
  let timestamp: number | undefined
  const signatures: Buffer[] = []
  for (const item of header.split(',')) {
    const [key, value = ''] = item.trim().split('=', 2) as [string, string?]
    if (key === 't' && /^\d{1,12}$/.test(value)) timestamp = Number(value)
    if (key === 'v1' && /^(?:[0-9a-f]{2})+$/i.test(value)) signatures.push(Buffer.from(value, 'hex'))
  }
  return { timestamp, signatures }
}
