import { describe, expect, test } from 'bun:test'
import { isAddressAllowed, maxAllowedIps, normalizeAllowedIps, parseAllowedIps, passesAddressRules } from './allowed-ips.ts'

describe('allowed_ips', () => {
  test('addresses and blocks of both families; a client matches any of them', () => {
    const rules = parseAllowedIps(['203.0.113.0/24', '198.51.100.7', '2001:db8:1::/48'])
    expect(isAddressAllowed(rules, '203.0.113.77')).toBe(true)
    expect(isAddressAllowed(rules, '198.51.100.7')).toBe(true)
    expect(isAddressAllowed(rules, '198.51.100.8')).toBe(false)
    expect(isAddressAllowed(rules, '2001:db8:1:ffff::1')).toBe(true)
    expect(isAddressAllowed(rules, '2001:db8:2::1')).toBe(false)
  })

  test('a client seen through an IPv6 socket as ::ffff:a.b.c.d matches IPv4 rules', () => {
    const rules = parseAllowedIps(['203.0.113.0/24'])
    expect(isAddressAllowed(rules, '::ffff:203.0.113.5')).toBe(true)
    expect(isAddressAllowed(rules, '::ffff:203.0.114.5')).toBe(false)
  })

  test('no rules set allows everyone; an unknown client address is refused by any rule', () => {
    expect(isAddressAllowed(undefined, 'unknown')).toBe(true)
    expect(isAddressAllowed(parseAllowedIps(['0.0.0.0/0']), 'unknown')).toBe(false)
  })

  test('refusals name the field, the entry and the fault', () => {
    expect(() => parseAllowedIps(['10.0.0.0/8', '10.0.0.300'])).toThrow('allowed_ips[1]: "10.0.0.300" is not an IP address or CIDR block')
    expect(() => parseAllowedIps(['::/129'], 'projects.team.allowed_ips')).toThrow(
      'projects.team.allowed_ips[0]: "::/129" is not an IP address or CIDR block such as 10.0.0.0/8, 192.168.1.7 or 2001:db8::/32: /129 is longer than an IPv6 address (128 bits)',
    )
    expect(() => parseAllowedIps([42])).toThrow('allowed_ips[0] must be a string such as "10.0.0.0/8"')
    expect(() => parseAllowedIps([])).toThrow(
      'allowed_ips is empty: list at least one address or block, or leave it out to allow every address',
    )
    expect(() => parseAllowedIps(new Array(maxAllowedIps + 1).fill('10.0.0.1'))).toThrow(
      `allowed_ips has ${maxAllowedIps + 1} entries; at most ${maxAllowedIps} are allowed`,
    )
  })

  test("a list as stored: each entry trimmed and once; a refusal follows the field's name, naming the entry by its place", () => {
    expect(normalizeAllowedIps([' 10.0.0.0/8', '10.0.0.0/8', '::1 '])).toEqual(['10.0.0.0/8', '::1'])
    expect(() => normalizeAllowedIps(['10.0.0.1', '10.0.0.300'])).toThrow(
      'has a bad entry 2: "10.0.0.300" is not an IP address or CIDR block',
    )
    expect(() => normalizeAllowedIps([null])).toThrow('has a bad entry 1: it must be a string such as "10.0.0.0/8"')
    expect(() => normalizeAllowedIps([])).toThrow('is empty: list at least one address or block')
  })

  test('every list that applies must let the address in; a list not set lets everyone in', () => {
    const office = parseAllowedIps(['203.0.113.0/24'])
    const team = parseAllowedIps(['203.0.113.0/25', '2001:db8::/32'])
    expect(passesAddressRules([office, team], '203.0.113.7')).toBe(true)
    expect(passesAddressRules([office, team], '203.0.113.200')).toBe(false) // the key's list narrows its project's
    expect(passesAddressRules([undefined, team], '2001:db8::1')).toBe(true)
    expect(passesAddressRules([undefined, undefined], '198.51.100.1')).toBe(true)
  })
})
