const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'

/**
 * Random bytes drawn from the system CSPRNG a page at a time: a `getRandomValues` call and a fresh buffer for
 * every request ID cost more than the ID itself. Every byte is used once.
 */
const pool = new Uint8Array(4096)
let next = pool.length

function randomByte(): number {
  if (next === pool.length) {
    crypto.getRandomValues(pool)
    next = 0
  }
  return pool[next++]!
}

/**
 * `length` characters drawn uniformly from base62 with crypto randomness (rejection sampling, no modulo bias).
 * 22 characters carry 131 bits.
 */
export function randomBase62(length: number): string {
  return base62Into(viewOf(length), 0)
}

/** `req_` and 20 base62 characters: the request's ID, made at the start of every request. */
export function newRequestId(): string {
  return base62Into(requestIdBytes, 4)
}

/**
 * The characters are written into a buffer and read as one string: `+=` a character at a time made a rope string per
 * character, ~20 cells of garbage per request ID (what a request's start drops stays resident while many streams are
 * open: edge/front-door.ts BodyRead).
 */
function base62Into(bytes: Uint8Array, from: number): string {
  for (let at = from; at < bytes.length; ) {
    const byte = randomByte()
    if (byte < 248) bytes[at++] = alphabetCodes[byte % 62]!
  }
  return ascii.decode(bytes)
}

const alphabetCodes = Uint8Array.from(alphabet, (char) => char.charCodeAt(0))
/** Every byte written is an ASCII letter or digit (or the `req_` prefix), which any single-byte decoding reads as itself. */
const ascii = new TextDecoder('latin1')
const requestIdBytes = Uint8Array.from('req_' + 'x'.repeat(20), (char) => char.charCodeAt(0))
/** One buffer per length asked for (a handful: IDs, secrets), reused. */
const views = new Map<number, Uint8Array>()

function viewOf(length: number): Uint8Array {
  let view = views.get(length)
  if (!view) views.set(length, (view = new Uint8Array(length)))
  return view
}
