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
  let result = ''
  while (result.length < length) {
    const byte = randomByte()
    if (byte < 248) result += alphabet[byte % 62]
  }
  return result
}

export function newRequestId(): string {
  return `req_${randomBase62(20)}`
}
