import { describe, expect, test } from 'bun:test'
import { isIP } from 'node:net'
import { blockContains, parseAddressBlock, readAddressBlock } from './address-block.ts'
import { parseIpAddress, unmapIpv4 } from './ip-address.ts'

const hex = (text: string) => Buffer.from(parseIpAddress(text)!.bytes).toString('hex')

describe('IP addresses', () => {
  test('IPv4 and IPv6 in their usual forms', () => {
    expect(hex('192.168.1.7')).toBe('c0a80107')
    expect(hex('::1')).toBe('00000000000000000000000000000001')
    expect(hex('::')).toBe('0'.repeat(32))
    expect(hex('2001:DB8::8a2e:370:7334')).toBe('20010db80000000000008a2e03707334')
    expect(hex('1:2:3:4:5:6:7::')).toBe('00010002000300040005000600070000')
    expect(hex('::ffff:1.2.3.4')).toBe('00000000000000000000ffff01020304')
    expect(hex('1:2:3:4:5:6:1.2.3.4')).toBe('00010002000300040005000601020304')
  })

  test('what is not an address, as node:net sees it too (zone indexes aside)', () => {
    for (const text of [
      '010.0.0.1',
      '1.2.3',
      '256.1.1.1',
      '1.2.3.4.5',
      ':::',
      '1::2::3',
      '00001::',
      '1:2:3:4:5:6:7:8:9',
      '1:2:3:4:5:6:7',
      '1:2:3:4:5:6:7:1.2.3.4',
      '0x7f.0.0.1',
      '2130706433',
      '',
      ' 1.2.3.4',
      '1.2.3.4::',
      'g::1',
    ]) {
      expect(parseIpAddress(text)).toBeUndefined()
      expect(isIP(text)).toBe(0)
    }
    expect(parseIpAddress('fe80::1%eth0')).toBeUndefined() // a zone means nothing to a rule
  })

  test('an IPv4-mapped IPv6 address reads as its IPv4 address', () => {
    expect(unmapIpv4(parseIpAddress('::ffff:10.1.2.3')!)).toEqual({ family: 'ipv4', bytes: Uint8Array.of(10, 1, 2, 3) })
    expect(unmapIpv4(parseIpAddress('::ffff:a01:203')!)).toEqual({ family: 'ipv4', bytes: Uint8Array.of(10, 1, 2, 3) })
    expect(unmapIpv4(parseIpAddress('::10.1.2.3')!).family).toBe('ipv6') // IPv4-compatible, not mapped
  })
})

describe('address blocks', () => {
  test('parsing keeps what the operator wrote', () => {
    expect(parseAddressBlock('10.0.0.0/8')).toMatchObject({ address: '10.0.0.0', prefix: 8, family: 'ipv4' })
    expect(parseAddressBlock(' ::1 ')).toMatchObject({ address: '::1', prefix: 128, family: 'ipv6' })
    expect(parseAddressBlock('192.168.1.7/24')).toMatchObject({ prefix: 24 })
    for (const bad of ['10.0.0.0/33', '::/129', '10.0.0.0/', '10.0.0.0/8/8', '10.0.0.0/x', 'example.com', '10.0.0.0/-1', '']) {
      expect(parseAddressBlock(bad)).toBeUndefined()
    }
  })

  test('refusals say what is wrong', () => {
    expect(() => readAddressBlock('10.0.0.0/33')).toThrow(
      '"10.0.0.0/33" is not an IP address or CIDR block such as 10.0.0.0/8, 192.168.1.7 or 2001:db8::/32: /33 is longer than an IPv4 address (32 bits)',
    )
    expect(() => readAddressBlock('2001:db8::/200')).toThrow('/200 is longer than an IPv6 address (128 bits)')
    expect(() => readAddressBlock('10.0.0.0/eight')).toThrow('the prefix after / must be a number of bits')
    expect(() => readAddressBlock('intranet')).toThrow('"intranet" is not an IP address or CIDR block')
  })

  test('matching by prefix, at byte and bit boundaries', () => {
    const block = readAddressBlock('172.16.0.0/12')
    expect(blockContains(block, '172.16.0.1')).toBe(true)
    expect(blockContains(block, '172.31.255.255')).toBe(true)
    expect(blockContains(block, '172.32.0.0')).toBe(false)
    expect(blockContains(block, '172.15.255.255')).toBe(false)
    expect(blockContains(readAddressBlock('192.168.1.7/24'), '192.168.1.200')).toBe(true) // host bits ignored
    expect(blockContains(readAddressBlock('0.0.0.0/0'), '8.8.8.8')).toBe(true)
    expect(blockContains(readAddressBlock('203.0.113.9'), '203.0.113.9')).toBe(true)
    expect(blockContains(readAddressBlock('203.0.113.9'), '203.0.113.10')).toBe(false)
    expect(blockContains(readAddressBlock('2001:db8::/33'), '2001:db8:7fff::1')).toBe(true)
    expect(blockContains(readAddressBlock('2001:db8::/33'), '2001:db8:8000::1')).toBe(false)
    expect(blockContains(readAddressBlock('fe80::/10'), 'febf::1')).toBe(true)
    expect(blockContains(readAddressBlock('fe80::/10'), 'fec0::1')).toBe(false)
  })

  test('IPv4-mapped addresses and blocks match as the IPv4 they are', () => {
    expect(blockContains(readAddressBlock('10.0.0.0/8'), '::ffff:10.9.8.7')).toBe(true)
    expect(blockContains(readAddressBlock('10.0.0.0/8'), '::ffff:a09:807')).toBe(true)
    expect(blockContains(readAddressBlock('10.0.0.0/8'), '::ffff:11.9.8.7')).toBe(false)
    expect(blockContains(readAddressBlock('::ffff:10.0.0.0/104'), '10.200.0.1')).toBe(true)
    expect(blockContains(readAddressBlock('::ffff:10.0.0.0/104'), '11.0.0.1')).toBe(false)
    expect(blockContains(readAddressBlock('::ffff:0:0/96'), '8.8.8.8')).toBe(true)
    expect(blockContains(readAddressBlock('::/0'), '8.8.8.8')).toBe(true) // every address, in its mapped form
    expect(blockContains(readAddressBlock('2001:db8::/32'), '8.8.8.8')).toBe(false)
    expect(blockContains(readAddressBlock('10.0.0.0/8'), '::10.0.0.1')).toBe(false) // IPv4-compatible is IPv6
  })

  test('text that is no address is in no block', () => {
    expect(blockContains(readAddressBlock('0.0.0.0/0'), 'unknown')).toBe(false)
    expect(blockContains(readAddressBlock('::/0'), '')).toBe(false)
  })
})
