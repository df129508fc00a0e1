/**
 * Who made a change, and from where: what an audit row records beside each change (issue 28). Every change a domain
 * service makes takes one, so that recording it later is the service's business, not a new argument at every caller.
 * The console and the admin API build it from the signed-in login or the admin token and the client's address; the
 * CLI from the OS user it runs as.
 */
export interface ChangeActor {
  kind: 'user' | 'admin-token' | 'cli'
  /** How a ledger entry or an audit row names it: the login's name, `admin-token:NAME`, `cli:OSUSER`. */
  label: string
  userId: number | null
  adminTokenId: string | null
  /** The client's address (after `trusted_proxies`) for the console and the admin API; null for the CLI. */
  address: string | null
}
