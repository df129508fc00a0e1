import { describe, expect, test } from 'bun:test'
import { checkResolvedAddresses, checkWebhookUrl, parseLegacyIpv4 } from './webhook-url.ts'

const reasonFor = (url: string, allowPrivate = false) => {
  const verdict = checkWebhookUrl(url, { allowPrivate })
  return verdict.allowed ? 'allowed' : verdict.reason
}

describe('webhook URLs', () => {
  test('public http and https URLs are allowed; names are left for the check at delivery', () => {
    const verdict = checkWebhookUrl('https://hooks.example.com/tollgate?team=7')
    expect(verdict).toMatchObject({ allowed: true, address: undefined })
    expect(reasonFor('http://93.184.215.14:8080/hook')).toBe('allowed')
    expect(reasonFor('https://[2606:4700:4700::1111]/hook')).toBe('allowed')
    expect(reasonFor('https://user:pass@hooks.example.com/')).toBe('allowed')
  })

  test('other schemes and non-URLs are refused', () => {
    expect(reasonFor('ftp://example.com/')).toBe('a webhook URL must be http or https, not ftp')
    expect(reasonFor('file:///etc/passwd')).toBe('a webhook URL must be http or https, not file')
    expect(reasonFor('gopher://127.0.0.1:6379/_FLUSHALL')).toBe('a webhook URL must be http or https, not gopher')
    expect(reasonFor('hooks.example.com/x')).toBe('"hooks.example.com/x" is not a URL')
    expect(reasonFor(`https://example.com/${'a'.repeat(2048)}`)).toBe('a webhook URL is at most 2048 characters')
  })

  test('loopback, private, link-local, shared and unique-local targets are refused, naming the range', () => {
    expect(reasonFor('http://127.0.0.1:6379/')).toBe('127.0.0.1 is a loopback address')
    expect(reasonFor('http://127.8.9.10/')).toBe('127.8.9.10 is a loopback address')
    expect(reasonFor('http://localhost:8080/')).toBe('localhost is a loopback name')
    expect(reasonFor('http://api.localhost./')).toBe('api.localhost. is a loopback name')
    expect(reasonFor('http://10.1.2.3/')).toBe('10.1.2.3 is a private address')
    expect(reasonFor('http://172.16.0.1/')).toBe('172.16.0.1 is a private address')
    expect(reasonFor('http://172.31.255.254/')).toBe('172.31.255.254 is a private address')
    expect(reasonFor('http://172.32.0.1/')).toBe('allowed')
    expect(reasonFor('http://192.168.1.1/')).toBe('192.168.1.1 is a private address')
    expect(reasonFor('http://169.254.169.254/latest/meta-data/')).toBe(
      '169.254.169.254 is a link-local address (cloud metadata services answer there)',
    )
    expect(reasonFor('http://100.64.0.1/')).toBe('100.64.0.1 is a shared (carrier-grade NAT) address')
    expect(reasonFor('http://100.128.0.1/')).toBe('allowed')
    expect(reasonFor('http://0.0.0.0:8080/')).toBe('0.0.0.0 is an unspecified ("this network") address')
    expect(reasonFor('http://[::1]/')).toBe('[::1] is a loopback address')
    expect(reasonFor('http://[::]/')).toBe('[::] is an unspecified address')
    expect(reasonFor('http://[fd00::1]/')).toBe('[fd00::1] is a unique-local address')
    expect(reasonFor('http://[fc12:3456::1]/')).toBe('[fc12:3456::1] is a unique-local address')
    expect(reasonFor('http://[fe80::1]/')).toBe('[fe80::1] is a link-local address')
    expect(reasonFor('http://[ff02::1]/')).toBe('[ff02::1] is a multicast address')
    expect(reasonFor('http://224.0.0.1/')).toBe('224.0.0.1 is a multicast address')
  })

  test('IPv6 forms that carry an IPv4 address are judged by that address', () => {
    expect(reasonFor('http://[::ffff:127.0.0.1]/')).toBe('[::ffff:7f00:1] is a loopback address')
    expect(reasonFor('http://[::ffff:169.254.169.254]/')).toBe(
      '[::ffff:a9fe:a9fe] is a link-local address (cloud metadata services answer there)',
    )
    expect(reasonFor('http://[0:0:0:0:0:ffff:10.0.0.1]/')).toBe('[::ffff:a00:1] is a private address')
    expect(reasonFor('http://[64:ff9b::10.0.0.1]/')).toBe('[64:ff9b::a00:1] is a private address inside an IPv6 address')
    expect(reasonFor('http://[2002:7f00:1::]/')).toBe('[2002:7f00:1::] is a loopback address inside an IPv6 address')
    expect(reasonFor('http://[::ffff:8.8.8.8]/')).toBe('allowed')
    expect(reasonFor('http://[64:ff9b::8.8.8.8]/')).toBe('allowed')
  })

  test('odd spellings of an address are read as the address they are', () => {
    expect(reasonFor('http://2130706433/')).toBe('127.0.0.1 is a loopback address')
    expect(reasonFor('http://0x7f000001/')).toBe('127.0.0.1 is a loopback address')
    expect(reasonFor('http://0177.0.0.1/')).toBe('127.0.0.1 is a loopback address')
    expect(reasonFor('http://0x7f.1/')).toBe('127.0.0.1 is a loopback address')
    expect(reasonFor('http://127.1/')).toBe('127.0.0.1 is a loopback address')
    expect(reasonFor('http://0xa9.0xfe.0xa9.0xfe/')).toBe('169.254.169.254 is a link-local address (cloud metadata services answer there)')
    expect(reasonFor('http://3232235777/')).toBe('192.168.1.1 is a private address')
    expect(reasonFor('http://0/')).toBe('0.0.0.0 is an unspecified ("this network") address')
  })

  test('the legacy IPv4 reader, for hosts that skip the URL parser', () => {
    const read = (host: string) => parseLegacyIpv4(host)?.bytes.join('.')
    expect(read('2130706433')).toBe('127.0.0.1')
    expect(read('0x7f.0.0.1')).toBe('127.0.0.1')
    expect(read('0177.0.0.01')).toBe('127.0.0.1')
    expect(read('127.1')).toBe('127.0.0.1')
    expect(read('10.1.65535')).toBe('10.1.255.255')
    expect(read('1.2.3.4.')).toBe('1.2.3.4')
    expect(read('4294967296')).toBeUndefined()
    expect(read('1.256.1.1')).toBeUndefined()
    expect(read('1.2.3.4.5')).toBeUndefined()
    expect(read('08.1.1.1')).toBeUndefined() // not octal, not decimal
    expect(read('example.com')).toBeUndefined()
  })

  test('the operator flag allows private targets, but never nowhere-addresses or other schemes', () => {
    expect(reasonFor('http://127.0.0.1:9000/hook', true)).toBe('allowed')
    expect(reasonFor('http://localhost:9000/hook', true)).toBe('allowed')
    expect(reasonFor('http://192.168.1.10/hook', true)).toBe('allowed')
    expect(reasonFor('http://[fd00::1]/hook', true)).toBe('allowed')
    expect(reasonFor('http://224.0.0.1/', true)).toBe('224.0.0.1 is a multicast address')
    expect(reasonFor('http://0.0.0.0/', true)).toBe('0.0.0.0 is an unspecified ("this network") address')
    expect(reasonFor('file:///etc/passwd', true)).toBe('a webhook URL must be http or https, not file')
  })
})

describe('resolved addresses (checked at delivery time)', () => {
  test('every address must be public, since the connection may use any of them', () => {
    expect(checkResolvedAddresses('hooks.example.com', ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'])).toEqual({
      allowed: true,
    })
    expect(checkResolvedAddresses('rebind.example', ['93.184.215.14', '127.0.0.1'])).toEqual({
      allowed: false,
      reason: 'rebind.example resolves to 127.0.0.1, a loopback address',
    })
    expect(checkResolvedAddresses('meta.example', ['::ffff:169.254.169.254'])).toEqual({
      allowed: false,
      reason: 'meta.example resolves to ::ffff:169.254.169.254, a link-local address (cloud metadata services answer there)',
    })
    expect(checkResolvedAddresses('empty.example', [])).toEqual({ allowed: false, reason: 'empty.example resolves to no address' })
    expect(checkResolvedAddresses('odd.example', ['not-an-address'])).toEqual({
      allowed: false,
      reason: 'odd.example resolves to not-an-address, not an IP address',
    })
  })

  test('with the operator flag, private answers pass', () => {
    expect(checkResolvedAddresses('receiver.lan', ['192.168.1.20', 'fd00::20'], { allowPrivate: true })).toEqual({ allowed: true })
  })
})
