/**
 * Addresses that are not the public internet: loopback, private and shared ranges, link-local (where cloud
 * metadata services answer, 169.254.169.254), unique-local, multicast, reserved and documentation ranges. A
 * webhook, which the gateway calls with a URL a tenant typed, must not reach any of them, or the gateway becomes a
 * way into the network it runs in (SSRF). IPv6 forms that carry an IPv4 address (mapped ::ffff:0:0/96, NAT64
 * 64:ff9b::/96, 6to4 2002::/16) are judged by the IPv4 address they carry.
 */
import { readAddressBlock, blockContains, type AddressBlock } from './address-block.ts'
import { unmapIpv4, type IpAddress } from './ip-address.ts'

/** `nowhere`: no host can answer there (unspecified, multicast); `internal`: some host inside the network can. */
export type SpecialUse = { reason: string; kind: 'internal' | 'nowhere' }

const ranges: [string, string, SpecialUse['kind']][] = [
  ['0.0.0.0/8', 'an unspecified ("this network") address', 'nowhere'],
  ['10.0.0.0/8', 'a private address', 'internal'],
  ['100.64.0.0/10', 'a shared (carrier-grade NAT) address', 'internal'],
  ['127.0.0.0/8', 'a loopback address', 'internal'],
  ['169.254.0.0/16', 'a link-local address (cloud metadata services answer there)', 'internal'],
  ['172.16.0.0/12', 'a private address', 'internal'],
  ['192.0.0.0/24', 'a reserved (IETF protocol) address', 'internal'],
  ['192.0.2.0/24', 'a documentation address', 'internal'],
  ['192.88.99.0/24', 'a reserved (6to4 relay) address', 'internal'],
  ['192.168.0.0/16', 'a private address', 'internal'],
  ['198.18.0.0/15', 'a reserved (benchmarking) address', 'internal'],
  ['198.51.100.0/24', 'a documentation address', 'internal'],
  ['203.0.113.0/24', 'a documentation address', 'internal'],
  ['224.0.0.0/4', 'a multicast address', 'nowhere'],
  ['240.0.0.0/4', 'a reserved address', 'internal'],
  ['::/128', 'an unspecified address', 'nowhere'],
  ['::1/128', 'a loopback address', 'internal'],
  ['::/96', 'a reserved (IPv4-compatible) address', 'internal'],
  ['64:ff9b:1::/48', 'a local NAT64 address', 'internal'],
  ['100::/64', 'a discard address', 'internal'],
  ['2001::/32', 'a Teredo tunnel address', 'internal'],
  ['2001:db8::/32', 'a documentation address', 'internal'],
  ['fc00::/7', 'a unique-local address', 'internal'],
  ['fe80::/10', 'a link-local address', 'internal'],
  ['fec0::/10', 'a site-local address', 'internal'],
  ['ff00::/8', 'a multicast address', 'nowhere'],
]

const blocks: [AddressBlock, SpecialUse][] = ranges.map(([cidr, reason, kind]) => [readAddressBlock(cidr), { reason, kind }])
const nat64 = readAddressBlock('64:ff9b::/96')
const sixToFour = readAddressBlock('2002::/16')

/** Why an address is not a public one (`a private address`), or undefined for a public address. */
export function specialUseOf(address: IpAddress): SpecialUse | undefined {
  const plain = unmapIpv4(address)
  const embedded = embeddedIpv4(plain)
  if (embedded) {
    const use = specialUseOf(embedded)
    return use && { ...use, reason: `${use.reason} inside an IPv6 address` }
  }
  for (const [block, use] of blocks) if (blockContains(block, plain)) return use
  return undefined
}

/** The IPv4 address a NAT64 or 6to4 address leads to (the mapped form is unmapped before this). */
function embeddedIpv4(address: IpAddress): IpAddress | undefined {
  if (address.family !== 'ipv6') return undefined
  if (blockContains(nat64, address)) return { family: 'ipv4', bytes: address.bytes.slice(12) }
  if (blockContains(sixToFour, address)) return { family: 'ipv4', bytes: address.bytes.slice(2, 6) }
  return undefined
}
