const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'

/**
 * `length` characters drawn uniformly from base62 with crypto randomness (rejection sampling, no modulo bias).
 * 22 characters carry 131 bits.
 */
export function randomBase62(length: number): string {
  let result = ''
  while (result.length < length) {
    for (const byte of crypto.getRandomValues(new Uint8Array(length * 2))) {
      if (byte < 248) result += alphabet[byte % 62]
      if (result.length === length) break
    }
  }
  return result
}

export function newRequestId(): string {
  return `req_${randomBase62(20)}`
}
