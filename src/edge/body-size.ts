import { GatewayError } from '../core/errors.ts'

/** The largest request body the gateway takes (images included). Bun's own limit is set above it (gateway.ts). */
export const maxBodyBytes = 32 * 1024 * 1024

/**
 * Bun's own limit answers with an empty 413 no SDK can explain, so it is set above this one (gateway.ts) and the body
 * is checked here, for a 413 the caller renders in its protocol's shape: a body declared too large before it is read
 * (`refuseDeclaredSize`), one sent without a length once read (`refuseReadSize`). Both take the declared length as
 * the headers were read already (refuseLargeHeaders), rather than asking the request's headers again.
 */
export function refuseDeclaredSize(declared: string | undefined, limit = maxBodyBytes): void {
  if (declared !== undefined && Number(declared) > limit) throw bodyTooLarge(limit)
}

export function refuseReadSize(declared: boolean, text: string, limit = maxBodyBytes): void {
  // Characters are at most bytes: only a text near the limit needs its bytes counted.
  if (!declared && text.length * 3 > limit && Buffer.byteLength(text) > limit) throw bodyTooLarge(limit)
}

/** `limit`: the route's own, when it takes less than the gateway does (the console and admin API: 1 MiB). */
export function bodyTooLarge(limit = maxBodyBytes): GatewayError {
  return new GatewayError('request_too_large', `The request body is too large: at most ${limit} bytes are accepted.`, {
    code: 'request_too_large',
  })
}

/**
 * The largest request header block the gateway takes, answered in the caller's protocol shape (431). Bun's own limit
 * answers with a bare 431 before any of the gateway's code runs, so the binary raises Bun's to `bunHeaderLimit`
 * (`--max-http-header-size` in the build's exec argv and the start script): between the two, a client gets an error
 * its SDK can read; past Bun's, the bare one.
 */
export const maxHeaderBytes = 16 * 1024
export const bunHeaderLimit = 64 * 1024

/** The request's headers by (lower-case) name, as refuseLargeHeaders read them: the one native read of them all. */
export type HeaderValues = Record<string, string | string[]>

export function refuseLargeHeaders(request: Request): HeaderValues {
  // One native call for every header (Bun's toJSON) rather than an iterator step and an entry array each: about half
  // the instructions of a for…of over the headers (callgrind, 8 headers, 2026-11-26). Set-Cookie, the one repeated
  // header that comes as a list, is a response header: a request's list counts by its joined length.
  const headers = request.headers.toJSON() as HeaderValues
  let size = 0
  for (const name in headers) size += name.length + String(headers[name]).length + 4
  if (size > maxHeaderBytes) {
    throw new GatewayError('request_too_large', `The request headers are too large: at most ${maxHeaderBytes} bytes are accepted.`, {
      code: 'headers_too_large',
      status: 431,
    })
  }
  return headers
}
