/** The allowed-addresses field as typed (commas, spaces or lines between entries) and as the API takes it: empty is every address. */
export function readAddressList(text: string): string[] | null {
  const entries = text.split(/[\s,]+/).filter(Boolean)
  return entries.length === 0 ? null : entries
}

export const addressListHint = 'Addresses or CIDR blocks, IPv4 or IPv6 (203.0.113.7, 10.0.0.0/8, 2001:db8::/32). Empty: any address.'
