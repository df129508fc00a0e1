/**
 * IP addresses and CIDR blocks as operators write them (`10.0.0.0/8`, `2001:db8::/32`, `::1`): trusted proxies,
 * per-key `allowed_ips`, and the ranges webhooks may not reach all use these. An IPv4-mapped IPv6 address
 * (`::ffff:1.2.3.4`) matches as the IPv4 address it is, and a block written in that form as the IPv4 block it is,
 * so a rule holds however the socket happens to report the peer.
 */
import { isMappedIpv4, mapIpv4, parseIpAddress, prefixMatches, unmapIpv4, type IpAddress } from './ip-address.ts'

export interface AddressBlock {
  /** The address as written (the network's bits beyond the prefix may be set: `192.168.1.7/24` is the /24). */
  address: string
  prefix: number
  family: 'ipv4' | 'ipv6'
  /** The block for matching: IPv4-mapped blocks as IPv4, bits past the prefix ignored. */
  network: IpAddress
  networkPrefix: number
}

const example = 'an IP address or CIDR block such as 10.0.0.0/8, 192.168.1.7 or 2001:db8::/32'

/** An IP address or CIDR block, or an Error naming the entry and what is wrong with it. */
export function readAddressBlock(entry: string): AddressBlock {
  const [address = '', bits, extra] = entry.trim().split('/')
  const parsed = parseIpAddress(address)
  if (!parsed || extra !== undefined) throw new Error(`"${entry}" is not ${example}`)
  const max = parsed.family === 'ipv4' ? 32 : 128
  if (bits !== undefined && !/^\d{1,3}$/.test(bits))
    throw new Error(`"${entry}" is not ${example}: the prefix after / must be a number of bits`)
  const prefix = bits === undefined ? max : Number(bits)
  if (prefix > max)
    throw new Error(
      `"${entry}" is not ${example}: /${prefix} is longer than an ${parsed.family === 'ipv4' ? 'IPv4' : 'IPv6'} address (${max} bits)`,
    )
  // A mapped block of /96 or longer lies inside the mapped range: it is the IPv4 block it names. A shorter one
  // reaches past that range and stays IPv6 (an IPv4 address is then matched in its mapped form).
  if (prefix >= 96 && isMappedIpv4(parsed.bytes))
    return { address, prefix, family: parsed.family, network: unmapIpv4(parsed), networkPrefix: prefix - 96 }
  return { address, prefix, family: parsed.family, network: parsed, networkPrefix: prefix }
}

/** An IP address or CIDR block (`10.0.0.0/8`, `::1`), or undefined when the text is neither. */
export function parseAddressBlock(entry: string): AddressBlock | undefined {
  try {
    return readAddressBlock(entry)
  } catch {
    return undefined
  }
}

/** Whether an address (text or parsed) lies in the block; text that is no address lies in none. */
export function blockContains(block: AddressBlock, address: string | IpAddress): boolean {
  const parsed = typeof address === 'string' ? parseIpAddress(address) : address
  if (!parsed) return false
  const candidate = unmapIpv4(parsed)
  if (candidate.family === block.network.family) return prefixMatches(candidate.bytes, block.network.bytes, block.networkPrefix)
  // An IPv4 address against an IPv6 block: compare its mapped form, which is what an IPv6 socket would report.
  return block.network.family === 'ipv6' && prefixMatches(mapIpv4(candidate.bytes), block.network.bytes, block.networkPrefix)
}
