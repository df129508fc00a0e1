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
 * `length` characters drawn uniformly from base62 with crypto randomness (rejection sampling, no modulo bias), after
 * `prefix` (ASCII). 22 characters carry 131 bits.
 */
export function randomBase62(length: number, prefix = ''): string {
  const start = prefix.length
  const end = start + length
  const into = end <= spelled.length ? spelled : Buffer.alloc(end)
  if (start > 0) into.write(prefix, 0, 'latin1')
  for (let at = start; at < end; ) {
    const byte = randomByte()
    if (byte < 248) into[at++] = alphabet.charCodeAt(byte % 62)
  }
  return into.toString('latin1', 0, end)
}

export function newRequestId(): string {
  return randomBase62(20, 'req_')
}
