import { GatewayError } from '../../core/errors.ts'

/** The largest request body the gateway takes (images included). Bun's own limit is set above it (gateway.ts). */
export const maxBodyBytes = 32 * 1024 * 1024

/**
 * A request's body as text, or a 413 the caller renders in its protocol's shape. Bun's own limit answers with an empty
 * 413 no SDK can explain, so it is set above this one: a body declared too large is refused here before it is read,
 * one sent without a length once read.
 */
export async function readBody(request: Request): Promise<string> {
  const declared = request.headers.get('content-length')
  if (declared !== null && Number(declared) > maxBodyBytes) throw bodyTooLarge()
  const text = await request.text()
  // Characters are at most bytes: only a text near the limit needs its bytes counted.
  if (declared === null && text.length * 3 > maxBodyBytes && Buffer.byteLength(text) > maxBodyBytes) throw bodyTooLarge()
  return text
}

export function bodyTooLarge(): GatewayError {
  return new GatewayError('request_too_large', `The request body is too large: at most ${maxBodyBytes} bytes are accepted.`, { code: 'request_too_large' })
}
