import type { Server } from 'bun'
import type { AddressBlock } from '../core/address-block.ts'
import { parseAllowedIps, passesAddressRules } from '../core/allowed-ips.ts'
import { GatewayError } from '../core/errors.ts'
import type { KeyRecord } from '../domain/records.ts'
import { clientAddress } from './client-address.ts'

/** Parsed once per list as the key cache holds it (a changed key is a new record with a new list): no work per request. */
const parsed = new WeakMap<readonly string[], AddressBlock[]>()

function rulesOf(entries: readonly string[] | null): AddressBlock[] | undefined {
  if (entries === null) return undefined
  let rules = parsed.get(entries)
  if (!rules) parsed.set(entries, (rules = parseAllowedIps(entries))) // checked when set (key-rules.ts): cannot throw
  return rules
}

/**
 * The `allowed_ips` lists that apply to a key's requests: its own and its project's, each of which must let the client
 * in (the narrower wins: a project's list cannot be widened by a key's, nor a key's by its project's). The project is
 * read with the key into the same in-memory cache (budgets/governance.ts), so the check stays free of I/O.
 */
function addressRulesFor(key: KeyRecord): AddressBlock[][] | undefined {
  const own = rulesOf(key.allowedIps)
  const shared = rulesOf(key.project?.allowedIps ?? null)
  if (own === undefined) return shared && [shared] // a key without rules of either kind (most) allocates nothing
  return shared === undefined ? [own] : [own, shared]
}

/**
 * A 403 for a request from an address its key's rules do not allow. The client's address is read only for a key with
 * rules (client-address.ts says why that is worth saving), through `trusted_proxies` as everywhere. The message names
 * neither the key nor its rules: a stolen key tried from elsewhere learns nothing about where it would work.
 */
export function refuseOtherAddresses(
  key: KeyRecord,
  request: Request,
  server: Server<unknown> | undefined,
  trustedProxies: readonly string[],
): void {
  const rules = addressRulesFor(key)
  if (rules === undefined) return
  if (passesAddressRules(rules, clientAddress(request, server, trustedProxies))) return
  // The operator's log line says which key was tried from where (noteUnauthenticated); the caller learns neither.
  throw new GatewayError('permission', 'Requests from this address are not allowed.', {
    code: 'address_not_allowed',
    logDetail: `key ${key.id}`,
  })
}
