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

/** Where an id's characters are written before they become one string (a `+=` per character made a string each). */
const spelled = Buffer.alloc(256)

/**
 * Bun's native Latin-1 read of a buffer (Node's too): `toString('latin1', …)` goes through the encoding's name and
 * the arguments' checks first. Not in the type declarations, hence the cast; not documented either, so a runtime
 * without it gets `toString` (ids would otherwise fail every request).
 */
type Latin1Readable = Buffer & { latin1Slice?(start: number, end: number): string }
const readLatin1: (buffer: Buffer, end: number) => string =
  typeof (Buffer.prototype as Latin1Readable).latin1Slice === 'function'
    ? (buffer, end) => (buffer as Latin1Readable).latin1Slice!(0, end)
    : (buffer, end) => buffer.toString('latin1', 0, end)

/** Base62 characters drawn uniformly with crypto randomness (rejection sampling, no modulo bias) into `into[start, end)`. */
function spellRandom(into: Buffer, start: number, end: number): void {
  for (let at = start; at < end; ) {
    const byte = randomByte()
    if (byte < 248) into[at++] = alphabet.charCodeAt(byte % 62)
  }
}

/**
 * `length` characters drawn uniformly from base62 with crypto randomness, after `prefix` (ASCII). 22 characters carry
 * 131 bits.
 */
export function randomBase62(length: number, prefix = ''): string {
  const start = prefix.length
  const end = start + length
  const into = end <= spelled.length ? spelled : Buffer.alloc(end)
  if (start > 0) into.write(prefix, 0, 'latin1')
  spellRandom(into, start, end)
  return readLatin1(into, end)
}

const requestIdPrefix = 'req_'
const requestIdLength = requestIdPrefix.length + 20
/** A request id's own buffer, its prefix written once: each id writes only its random characters (one a request). */
const requestIdSpelled = Buffer.alloc(requestIdLength)
requestIdSpelled.write(requestIdPrefix, 0, 'latin1')

export function newRequestId(): string {
  spellRandom(requestIdSpelled, requestIdPrefix.length, requestIdLength)
  return readLatin1(requestIdSpelled, requestIdLength)
}
