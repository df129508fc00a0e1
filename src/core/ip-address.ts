/**
 * IP addresses as bytes, so that blocks can be matched by prefix without `node:net`'s BlockList (whose handling of
 * IPv4-mapped IPv6 addresses differs between runtimes). Parsing is strict, as `isIP` is: dotted quads without
 * leading zeros (`010.0.0.1` could mean octal to one tool and decimal to another), IPv6 with one `::` at most and
 * an optional dotted quad at the end, no zone index. Legacy forms such as `2130706433` are not addresses here;
 * webhook-url.ts reads those on purpose, to refuse them.
 */

export interface IpAddress {
  family: 'ipv4' | 'ipv6'
  /** 4 bytes for IPv4, 16 for IPv6, network order. */
  bytes: Uint8Array
}

const dottedQuad = /^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/

export function parseIpAddress(text: string): IpAddress | undefined {
  if (dottedQuad.test(text)) return { family: 'ipv4', bytes: Uint8Array.from(text.split('.'), Number) }
  const bytes = parseIpv6(text)
  return bytes && { family: 'ipv6', bytes }
}

/** `::ffff:a.b.c.d` is an IPv4 client seen through an IPv6 socket: it is that IPv4 address, for every rule. */
export function unmapIpv4(address: IpAddress): IpAddress {
  if (address.family === 'ipv4' || !isMappedIpv4(address.bytes)) return address
  return { family: 'ipv4', bytes: address.bytes.slice(12) }
}

/** The 16 bytes of `::ffff:a.b.c.d` for the 4 bytes of `a.b.c.d`. */
export function mapIpv4(bytes: Uint8Array): Uint8Array {
  const mapped = new Uint8Array(16)
  mapped[10] = 0xff
  mapped[11] = 0xff
  mapped.set(bytes, 12)
  return mapped
}

export function isMappedIpv4(bytes: Uint8Array): boolean {
  return bytes.length === 16 && bytes.subarray(0, 10).every((byte) => byte === 0) && bytes[10] === 0xff && bytes[11] === 0xff
}

/** Whether the first `prefix` bits of two byte strings of the same length agree. */
export function prefixMatches(left: Uint8Array, right: Uint8Array, prefix: number): boolean {
  const whole = prefix >> 3
  for (let index = 0; index < whole; index++) if (left[index] !== right[index]) return false
  const rest = prefix & 7
  if (rest === 0) return true
  const mask = (0xff << (8 - rest)) & 0xff
  return (left[whole]! & mask) === (right[whole]! & mask)
}

function parseIpv6(text: string): Uint8Array | undefined {
  const halves = text.split('::')
  if (halves.length > 2) return undefined
  const head = groupsOf(halves[0]!, halves.length === 1)
  const tail = halves.length === 2 ? groupsOf(halves[1]!, true) : []
  if (!head || !tail) return undefined
  const missing = 8 - head.length - tail.length
  if (halves.length === 1 ? missing !== 0 : missing < 1) return undefined
  const groups = [...head, ...new Array<number>(halves.length === 2 ? missing : 0).fill(0), ...tail]
  const bytes = new Uint8Array(16)
  groups.forEach((group, index) => {
    bytes[index * 2] = group >> 8
    bytes[index * 2 + 1] = group & 0xff
  })
  return bytes
}

/** The 16-bit groups of one side of `::`; a dotted quad may end the last side and counts as two groups. */
function groupsOf(side: string, mayEndInIpv4: boolean): number[] | undefined {
  if (side === '') return []
  const parts = side.split(':')
  const groups: number[] = []
  for (const [index, part] of parts.entries()) {
    if (index === parts.length - 1 && mayEndInIpv4 && dottedQuad.test(part)) {
      const [a, b, c, d] = part.split('.').map(Number) as [number, number, number, number]
      groups.push((a << 8) | b, (c << 8) | d)
    } else if (/^[0-9a-f]{1,4}$/i.test(part)) {
      groups.push(Number.parseInt(part, 16))
    } else {
      return undefined
    }
  }
  return groups
}
