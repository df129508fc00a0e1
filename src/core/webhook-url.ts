/**
 * Whether the gateway may call a webhook URL a tenant gave it. Only http and https, and never an address inside
 * the network the gateway runs in (special-addresses.ts), unless the operator allows private targets (a receiver on
 * the same host or LAN). The host's odd numeric spellings (`2130706433`, `0x7f.1`, `0177.0.0.1`) are read as the
 * address a resolver would make of them, and judged as that address.
 *
 * A host name is only half the check: what it resolves to is I/O, and is decided at delivery time. The delivery
 * code must (1) resolve the name right before each attempt, (2) pass every address to checkResolvedAddresses, (3)
 * connect to a checked address rather than resolving the name again — otherwise a DNS answer that changes between
 * the check and the connection (rebinding) walks past the check — keeping the name for the Host header and TLS
 * server name, and (4) never follow redirects, since a public receiver can answer 302 to 169.254.169.254.
 */
import { parseIpAddress, type IpAddress } from './ip-address.ts'
import { specialUseOf } from './special-addresses.ts'

export interface WebhookUrlOptions {
  /** The operator's flag: loopback and private targets allowed (still only http and https). */
  allowPrivate?: boolean
}

export type WebhookUrlVerdict = { allowed: true; url: URL; address: IpAddress | undefined } | { allowed: false; reason: string }

const maxWebhookUrlLength = 2048

/** `address` is set when the host is a literal address; otherwise the name is checked again when resolved. */
export function checkWebhookUrl(text: string, options: WebhookUrlOptions = {}): WebhookUrlVerdict {
  if (text.length > maxWebhookUrlLength) return refuse(`a webhook URL is at most ${maxWebhookUrlLength} characters`)
  let url: URL
  try {
    url = new URL(text)
  } catch {
    return refuse(`"${text}" is not a URL`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return refuse(`a webhook URL must be http or https, not ${url.protocol.slice(0, -1)}`)
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname
  const address = parseIpAddress(host) ?? parseLegacyIpv4(host)
  if (address) {
    const reason = refusalFor(address, options)
    return reason ? refuse(`${url.hostname} is ${reason}`) : { allowed: true, url, address }
  }
  if (looksNumeric(host)) return refuse(`${url.hostname} is neither a host name nor an IP address`)
  const bare = host.replace(/\.$/, '').toLowerCase()
  if (!options.allowPrivate && (bare === 'localhost' || bare.endsWith('.localhost'))) return refuse(`${url.hostname} is a loopback name`)
  return { allowed: true, url, address: undefined }
}

/** Checks what the webhook's host resolved to: every address must be allowed, as the connection may use any. */
export function checkResolvedAddresses(
  host: string,
  addresses: readonly string[],
  options: WebhookUrlOptions = {},
): { allowed: true } | { allowed: false; reason: string } {
  if (addresses.length === 0) return refuse(`${host} resolves to no address`)
  for (const text of addresses) {
    const address = parseIpAddress(text)
    const reason = address ? refusalFor(address, options) : 'not an IP address'
    if (reason) return refuse(`${host} resolves to ${text}, ${reason}`)
  }
  return { allowed: true }
}

/** Unspecified and multicast addresses are no destination even for an operator who allows private targets. */
function refusalFor(address: IpAddress, options: WebhookUrlOptions): string | undefined {
  const use = specialUseOf(address)
  return use && (!options.allowPrivate || use.kind === 'nowhere') ? use.reason : undefined
}

/**
 * IPv4 as inet_aton reads it: one to four parts, each decimal, octal (leading 0) or hex (0x), the last filling the
 * remaining bytes — `2130706433`, `127.1` and `0x7f.0.0.1` are all 127.0.0.1. URL parsers and resolvers accept these.
 */
export function parseLegacyIpv4(host: string): IpAddress | undefined {
  const parts = host.replace(/\.$/, '').split('.')
  if (parts.length > 4) return undefined
  const values: number[] = []
  for (const part of parts) {
    const value = /^0x[0-9a-f]*$/i.test(part)
      ? Number.parseInt(part.slice(2) || '0', 16)
      : /^0[0-7]+$/.test(part)
        ? Number.parseInt(part, 8)
        : /^(0|[1-9]\d*)$/.test(part)
          ? Number(part)
          : Number.NaN
    if (!Number.isSafeInteger(value)) return undefined
    values.push(value)
  }
  const last = values.pop()!
  if (values.some((value) => value > 255) || last >= 256 ** (4 - values.length)) return undefined
  const bytes = new Uint8Array(4)
  values.forEach((value, index) => (bytes[index] = value))
  for (let index = 3, rest = last; index >= values.length; index--, rest = Math.floor(rest / 256)) bytes[index] = rest % 256
  return { family: 'ipv4', bytes }
}

/** A last label of digits (or 0x…) makes a host an attempted number, which URL parsers refuse to treat as a name. */
function looksNumeric(host: string): boolean {
  const last = host.replace(/\.$/, '').split('.').pop() ?? ''
  return /^(\d+|0x[0-9a-f]*)$/i.test(last)
}

function refuse(reason: string): { allowed: false; reason: string } {
  return { allowed: false, reason }
}
