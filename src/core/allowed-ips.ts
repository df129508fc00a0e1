/**
 * Per-key (or per-project) `allowed_ips`: the addresses a key may be used from. Each entry is an address or a CIDR
 * block, IPv4 or IPv6; a client reported as `::ffff:1.2.3.4` is matched as 1.2.3.4. The list is checked once when
 * it is set, with a message naming the bad entry, so a typo cannot lock a key out (or leave it open) silently.
 */
import { blockContains, readAddressBlock, type AddressBlock } from './address-block.ts'
import { parseIpAddress, type IpAddress } from './ip-address.ts'

/** More entries than this is a firewall's job; the check is a linear scan on every request. */
export const maxAllowedIps = 1000

/**
 * The rules, or an Error naming the field, the entry and the fault. An empty list is refused: a key usable from
 * nowhere is a mistake, and "no rule" is written by leaving the field out.
 */
export function parseAllowedIps(entries: readonly unknown[], field = 'allowed_ips'): AddressBlock[] {
  if (entries.length === 0) throw new Error(`${field} is empty: list at least one address or block, or leave it out to allow every address`)
  if (entries.length > maxAllowedIps) throw new Error(`${field} has ${entries.length} entries; at most ${maxAllowedIps} are allowed`)
  return entries.map((entry, index) => {
    if (typeof entry !== 'string') throw new Error(`${field}[${index}] must be a string such as "10.0.0.0/8"`)
    try {
      return readAddressBlock(entry)
    } catch (error) {
      throw new Error(`${field}[${index}]: ${(error as Error).message}`)
    }
  })
}

/**
 * The list as it is stored — each entry trimmed and kept once — for a key's or a project's field, or an Error whose
 * message follows the field's name as each caller writes it (`allowed_ips`, `--allowed-ips`): `has a bad entry 2:
 * "10.0.0.300" is not an IP address…`, `is empty: …`.
 */
export function normalizeAllowedIps(entries: readonly unknown[]): string[] {
  if (entries.length === 0) throw new Error('is empty: list at least one address or block, or leave it out to allow every address')
  if (entries.length > maxAllowedIps) throw new Error(`has ${entries.length} entries; at most ${maxAllowedIps} are allowed`)
  const trimmed = entries.map((entry, index) => {
    if (typeof entry !== 'string') throw new Error(`has a bad entry ${index + 1}: it must be a string such as "10.0.0.0/8"`)
    try {
      readAddressBlock(entry)
    } catch (error) {
      throw new Error(`has a bad entry ${index + 1}: ${(error as Error).message}`)
    }
    return entry.trim()
  })
  return [...new Set(trimmed)]
}

/** Whether a client address may use the key: a rule containing it allows it; no rules set (undefined) allows all. */
export function isAddressAllowed(rules: readonly AddressBlock[] | undefined, clientAddress: string | IpAddress | undefined): boolean {
  if (rules === undefined) return true
  // Parsed once, not once per rule (parsing is most of a check's cost); text that is no address is in no rule.
  const address = typeof clientAddress === 'string' ? parseIpAddress(clientAddress) : clientAddress
  return address !== undefined && rules.some((rule) => blockContains(rule, address))
}

/**
 * Whether a client address passes every rule list that applies to a request — a key's own, and (issue 27) its
 * project's: each list that is set must contain the address, so a key's list can only narrow its project's. Lists
 * left unset (undefined) allow every address.
 */
export function passesAddressRules(ruleLists: readonly (readonly AddressBlock[] | undefined)[], clientAddress: string): boolean {
  const address = parseIpAddress(clientAddress)
  return ruleLists.every((rules) => isAddressAllowed(rules, address))
}
