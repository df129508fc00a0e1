import { parseDatabaseUrl } from '../core/database-url.ts'
import { parseAddressBlock } from '../core/address-block.ts'
import type { AuthConfig, Config, LimitsConfig, OidcConfig, TelemetryConfig } from './types.ts'
import { ConfigError, type Fields, readBoolean, readList, readNumber, readObject, readString, rejectUnknownKeys } from './validate.ts'

/**
 * The config's smaller sections and single settings (limits, retention, tasks, admin, telemetry, the listening port,
 * the database and Redis addresses, the log level): each read and checked here, naming the field at fault.
 */

export function parseLimits(limits: Fields): LimitsConfig {
  rejectUnknownKeys(limits, ['json_depth', 'count_tokens_bytes', 'write_idle_ms', 'upstream_event_bytes', 'upstream_body_bytes', 'upstream_error_bytes', 'body_timeout_ms', 'unauthenticated_per_address', 'upstream_connections'], 'limits')
  const read = (key: string, fallback: number) => readNumber(limits[key], `limits.${key}`, fallback, { min: 1, integer: true })
  return {
    // Real clients nest 10–40 levels (Claude Code's deepest tool schemas); 45,000 levels overflowed the gateway's stack.
    jsonDepth: readNumber(limits.json_depth, 'limits.json_depth', 128, { min: 8, integer: true }),
    countTokensBytes: readNumber(limits.count_tokens_bytes, 'limits.count_tokens_bytes', 2 * 1024 * 1024, { min: 1024, integer: true }),
    writeIdleMs: read('write_idle_ms', 30_000),
    upstreamEventBytes: read('upstream_event_bytes', 8 * 1024 * 1024),
    upstreamBodyBytes: read('upstream_body_bytes', 64 * 1024 * 1024),
    upstreamErrorBytes: read('upstream_error_bytes', 64 * 1024),
    bodyTimeoutMs: read('body_timeout_ms', 30_000),
    unauthenticatedPerAddress: read('unauthenticated_per_address', 32),
    upstreamConnections: readUpstreamConnections(limits.upstream_connections),
  }
}

/**
 * Bun's fetch sends at most this many requests at once and queues the rest (its own default, 256, held the 257th long
 * stream back for seconds). The default leaves room for 10,000 streams and more; Bun takes at most 65535.
 */
function readUpstreamConnections(value: unknown): number {
  const connections = readNumber(value, 'limits.upstream_connections', 16_384, { min: 1, integer: true })
  if (connections > 65_535) throw new ConfigError('limits.upstream_connections', 'must be at most 65535 (the most Bun allows)')
  return connections
}

export function parseRedisUrl(url: string): string {
  if (!/^rediss?:\/\/[^/]/.test(url)) throw new ConfigError('redis', 'must be a URL such as redis://127.0.0.1:6379/0')
  return url
}

export function parseTrustedProxies(value: unknown): string[] {
  if (value === undefined) return []
  const entries = readList(value, 'trusted_proxies').map((item, index) => readString(item, `trusted_proxies[${index}]`))
  const invalid = entries.find((entry) => parseAddressBlock(entry) === undefined)
  if (invalid !== undefined) throw new ConfigError('trusted_proxies', `"${invalid}" is not an IP address or CIDR block such as 10.0.0.0/8`)
  return entries
}

/** 0 asks the system for a free port (tests do); above 65535 no socket can listen. */
export function readPort(value: unknown, field: string): number {
  const port = readNumber(value, field, 8080, { integer: true })
  if (port > 65535) throw new ConfigError(field, `must be a port number from 0 to 65535, got ${port}`)
  return port
}

/** Only the documented forms (core/database-url.ts); a guess would put the data somewhere unexpected. */
export function readDatabase(value: string, field: string): string {
  const target = parseDatabaseUrl(value)
  if (typeof target === 'string') throw new ConfigError(field, target)
  return value
}

const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']

export function readLogLevel(log: Fields): string {
  rejectUnknownKeys(log, ['level'], 'log')
  const level = readString(log.level, 'log.level', 'info')
  if (!logLevels.includes(level)) throw new ConfigError('log.level', `must be one of ${logLevels.join(', ')}, got "${level}"`)
  return level
}

export function parseRetention(retention: Fields): Config['retention'] {
  rejectUnknownKeys(retention, ['requests_days'], 'retention')
  return { requestsDays: readNumber(retention.requests_days, 'retention.requests_days', 90, { min: 0, integer: true }) }
}

export function parseTasks(tasks: Fields): Config['tasks'] {
  rejectUnknownKeys(tasks, ['concurrency', 'per_account', 'retention_days', 'max_file_bytes', 'window_s', 'max_files_per_account',
    'max_stored_bytes_per_account', 'max_open_batches_per_account'], 'tasks')
  const most = (key: string, fallback: number) => readNumber(tasks[key], `tasks.${key}`, fallback, { min: 1, integer: true })
  return {
    concurrency: readNumber(tasks.concurrency, 'tasks.concurrency', 4, { min: 1, integer: true }),
    perAccount: readNumber(tasks.per_account, 'tasks.per_account', 2, { min: 1, integer: true }),
    retentionDays: readNumber(tasks.retention_days, 'tasks.retention_days', 30, { min: 0 }),
    maxFileBytes: readNumber(tasks.max_file_bytes, 'tasks.max_file_bytes', 200 * 1024 * 1024, { min: 1, integer: true }),
    windowS: readNumber(tasks.window_s, 'tasks.window_s', 86_400, { min: 1, integer: true }),
    // What one account may keep: a $0 key once stored 10 × 20 MiB and opened batches without end.
    maxFilesPerAccount: most('max_files_per_account', 1000),
    maxStoredBytesPerAccount: most('max_stored_bytes_per_account', 1024 * 1024 * 1024),
    maxOpenBatchesPerAccount: most('max_open_batches_per_account', 25),
  }
}

export function parseAdmin(admin: Fields): Config['admin'] {
  rejectUnknownKeys(admin, ['protect_metrics'], 'admin')
  return { protectMetrics: readBoolean(admin.protect_metrics, 'admin.protect_metrics', false) }
}

export function parseTelemetry(telemetry: Fields): TelemetryConfig {
  rejectUnknownKeys(telemetry, ['otlp_endpoint', 'service_name', 'headers', 'sample_ratio'], 'telemetry')
  const endpoint = readString(telemetry.otlp_endpoint, 'telemetry.otlp_endpoint').replace(/\/+$/, '')
  if (!/^https?:\/\/[^/]/.test(endpoint)) throw new ConfigError('telemetry.otlp_endpoint', 'must be a URL such as http://127.0.0.1:4318')
  const sampleRatio = readNumber(telemetry.sample_ratio, 'telemetry.sample_ratio', 1, { min: 0 })
  if (sampleRatio > 1) throw new ConfigError('telemetry.sample_ratio', 'must be from 0 to 1')
  const headers: Record<string, string> = {}
  for (const [name, value] of Object.entries(readObject(telemetry.headers ?? {}, 'telemetry.headers'))) {
    headers[name] = readString(value, `telemetry.headers.${name}`)
  }
  return {
    // The OTLP convention: a base URL gets the signal's path; a URL that names it already is used as it is.
    tracesUrl: endpoint.endsWith('/v1/traces') ? endpoint : `${endpoint}/v1/traces`,
    serviceName: readString(telemetry.service_name, 'telemetry.service_name', 'tollgate'),
    headers,
    sampleRatio,
  }
}

/**
 * `auth: { passwords?, oidc? }`. The issuer must be https (http only on a loopback host, for a provider on the same
 * machine): the ID token's trust rests on fetching the provider's keys from the real provider.
 */
export function parseAuth(auth: Fields): AuthConfig {
  rejectUnknownKeys(auth, ['passwords', 'oidc'], 'auth')
  const passwords = readBoolean(auth.passwords, 'auth.passwords', true)
  const oidc = auth.oidc === undefined || auth.oidc === null ? undefined : parseOidc(readObject(auth.oidc, 'auth.oidc'))
  if (!passwords && !oidc) throw new ConfigError('auth.passwords', 'false needs auth.oidc: otherwise nobody could sign in to the console')
  return { passwords, oidc }
}

function parseOidc(oidc: Fields): OidcConfig {
  rejectUnknownKeys(oidc, ['issuer', 'client_id', 'client_secret', 'name', 'scopes', 'allowed_domains', 'role_claim', 'account_claim'], 'auth.oidc')
  const issuer = readString(oidc.issuer, 'auth.oidc.issuer')
  let url: URL | undefined
  try {
    url = new URL(issuer)
  } catch {}
  const loopback = url !== undefined && /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/.test(url.hostname)
  if (!url || !(url.protocol === 'https:' || (url.protocol === 'http:' && loopback)) || url.search || url.hash) {
    throw new ConfigError('auth.oidc.issuer', 'must be the provider\'s https:// issuer URL, e.g. https://sso.example.com/realms/acme')
  }
  const readWords = (key: string) => readList(oidc[key], `auth.oidc.${key}`).map((item, index) => readString(item, `auth.oidc.${key}[${index}]`).trim())
  const scopes = readWords('scopes')
  const allowedDomains = readWords('allowed_domains').map((domain) => domain.toLowerCase().replace(/^@/, ''))
  const optional = (key: string) => (oidc[key] === undefined || oidc[key] === null ? undefined : readString(oidc[key], `auth.oidc.${key}`))
  return {
    issuer,
    clientId: readString(oidc.client_id, 'auth.oidc.client_id'),
    clientSecret: readString(oidc.client_secret, 'auth.oidc.client_secret'),
    name: readString(oidc.name, 'auth.oidc.name', 'single sign-on'),
    scopes: [...new Set(['openid', ...(scopes.length > 0 ? scopes : ['email', 'profile'])])],
    allowedDomains,
    roleClaim: optional('role_claim'),
    accountClaim: optional('account_claim'),
  }
}

export function parseLedger(ledger: Fields): Config['ledger'] {
  rejectUnknownKeys(ledger, ['write_timeout_ms', 'spool_dir', 'heartbeat_ms', 'instance_timeout_ms'], 'ledger')
  const heartbeatMs = readNumber(ledger.heartbeat_ms, 'ledger.heartbeat_ms', 5_000, { min: 10, integer: true })
  const instanceTimeoutMs = readNumber(ledger.instance_timeout_ms, 'ledger.instance_timeout_ms', 30_000, { min: 10, integer: true })
  // A lease is trusted for the timeout less one beat after each heartbeat: at least two beats must fit in it.
  if (instanceTimeoutMs < 2 * heartbeatMs) throw new ConfigError('ledger.instance_timeout_ms', `must be at least twice ledger.heartbeat_ms (${heartbeatMs})`)
  return {
    writeTimeoutMs: readNumber(ledger.write_timeout_ms, 'ledger.write_timeout_ms', 2_000, { min: 10, integer: true }),
    spoolDir: ledger.spool_dir === undefined ? undefined : readString(ledger.spool_dir, 'ledger.spool_dir'),
    heartbeatMs,
    instanceTimeoutMs,
  }
}
