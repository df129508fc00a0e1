import { isIP } from 'node:net'

export interface AddressBlock {
  address: string
  prefix: number
  family: 'ipv4' | 'ipv6'
}

/** An IP address or CIDR block (`10.0.0.0/8`, `::1`), or undefined when the text is neither. */
export function parseAddressBlock(entry: string): AddressBlock | undefined {
  const [address = '', bits, extra] = entry.trim().split('/')
  const version = isIP(address)
  if (version === 0 || extra !== undefined) return undefined
  const max = version === 4 ? 32 : 128
  if (bits !== undefined && !/^\d{1,3}$/.test(bits)) return undefined
  const prefix = bits === undefined ? max : Number(bits)
  if (prefix > max) return undefined
  return { address, prefix, family: version === 4 ? 'ipv4' : 'ipv6' }
}
