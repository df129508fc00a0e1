import type { Price } from '../core/pricing.ts'
import type { PaidFeature } from '../core/paid-features.ts'

export type ProviderType = 'openai' | 'anthropic' | 'gemini' | 'mock'

export interface Timeouts {
  connectMs: number
  firstByteMs: number
  idleMs: number
  totalMs: number
}

export interface ProviderConfig {
  name: string
  type: ProviderType
  baseUrl: string
  apiKey?: string
  /** Extra headers sent upstream on every request (organisation ids, proxies' own auth…). */
  headers: Record<string, string>
  timeouts: Timeouts
  /** Same-protocol requests are forwarded byte for byte unless this is false. */
  passthrough: boolean
  /** Mock only: milliseconds between streamed chunks. */
  chunkDelayMs: number
  /** How much of this provider's answers is read at most: the root `limits:` (upstream_*_bytes), copied here. */
  caps: UpstreamCaps
}

export interface UpstreamCaps {
  eventBytes: number
  bodyBytes: number
  errorBytes: number
}

export interface RouteConfig {
  provider: string
  upstreamModel: string
  weight: number
  priority: number
}

export interface ModelConfig {
  id: string
  routes: RouteConfig[]
  fallbacks: string[]
  price: Price
  /** Batch items' price (`price.batch`), when the operator gives one; else batch items pay `price`. */
  batchPrice?: Price
  maxOutputTokens: number
  contextWindow?: number
  ownedBy: string
  /** A model that thinks before it answers (hidden reasoning tokens): a client leaving does not stop its answer. */
  reasoning: boolean
  /** Paid upstream features (server tools, priority tiers…) this model's requests may use: `allow:` in the config. */
  allow: PaidFeature[]
}

export interface RoutingConfig {
  /** Upstream attempts per request, the first included. */
  maxAttempts: number
  /** How long a tripped route is skipped before one probe request may try it again. */
  cooldownS: number
  /** The recent window whose failure share trips a route. */
  windowS: number
  /** Fewer outcomes than this in the window never trip a route (one failure in one request is not a trend). */
  minRequests: number
  /** Failure share (0–1] of the window at which a route trips. */
  failureRatio: number
  /** First retry waits up to this (full jitter), doubling per retry up to `backoffMaxMs`. */
  backoffMs: number
  backoffMaxMs: number
  /** An upstream asking us to wait longer than this (retry-after) is not retried on the same route. */
  maxRetryAfterS: number
}

/** Bounds on what one request, client or upstream may make the gateway do (`limits:` in the config). */
export interface LimitsConfig {
  /** Deepest nesting of arrays and objects a JSON request body may have (`limits.json_depth`). */
  jsonDepth: number
  /** Largest body a token-counting request may send, in bytes (`limits.count_tokens_bytes`). */
  countTokensBytes: number
  /** A streamed answer whose client takes none of it for this long ends (499, billed for what was produced). */
  writeIdleMs: number
  /** The longest SSE line or event an upstream may send. */
  upstreamEventBytes: number
  /** The largest whole (non-streamed) upstream body read. */
  upstreamBodyBytes: number
  /** How much of an upstream error body is read; the rest is discarded. */
  upstreamErrorBytes: number
  /** How long a client may take to send its request body (408). */
  bodyTimeoutMs: number
  /** Requests in progress from one address before its key is known (429 beyond). */
  unauthenticatedPerAddress: number
  /** Upstream requests Bun's fetch runs at once (BUN_CONFIG_MAX_HTTP_REQUESTS, applied at start: cli/upstream-connections.ts). */
  upstreamConnections: number
}

export interface LedgerConfig {
  /** The longest an answer waits for its bill's commit (and a request for its reservation): then the bill is spooled. */
  writeTimeoutMs: number
  /** Where bills wait while the database is unreachable; undefined: next to the SQLite file, or ./data/spool. */
  spoolDir?: string
  /** PostgreSQL: how often an instance records that it is alive. */
  heartbeatMs: number
  /** PostgreSQL: an instance silent this long is gone and its holds are released (the same on every instance). */
  instanceTimeoutMs: number
}

export interface TelemetryConfig {
  /** The collector's OTLP/HTTP traces URL: `otlp_endpoint` with `/v1/traces` added unless it ends so already. */
  tracesUrl: string
  serviceName: string
  /** Sent with every export (a collector's or vendor's auth). */
  headers: Record<string, string>
  /** Share of requests traced when the client sent no sampling decision (a `traceparent` decides for its trace). */
  sampleRatio: number
}

/** `auth.oidc:` single sign-on for the console through an OpenID Connect provider (console/server/oidc). */
export interface OidcConfig {
  /** The provider's issuer URL exactly as its discovery document states it (`/.well-known/openid-configuration` is added). */
  issuer: string
  clientId: string
  clientSecret: string
  /** The sign-in button reads "Sign in with {name}". */
  name: string
  /** Scopes asked for; `openid` is always among them. */
  scopes: string[]
  /** Lower-case email domains allowed to sign in; empty: any. */
  allowedDomains: string[]
  /** The claim whose value(s) name the Tollgate role (a dotted path reaches nested claims such as `realm_access.roles`). */
  roleClaim?: string
  /** The claim whose value names the account (by name or id) an account user belongs to. */
  accountClaim?: string
}

/** How people sign in to the console (`auth:`): local passwords, single sign-on, or both. */
export interface AuthConfig {
  /** false: the console refuses password sign-ins and shows only the identity provider's button. */
  passwords: boolean
  oidc?: OidcConfig
}

export interface Config {
  listen: { host: string; port: number }
  database: string
  /** Shared state for several instances (limits, sign-in throttle, key changes, route health); none: per process. */
  redis?: string
  /** Peers whose X-Forwarded-For is believed (IPs or CIDR blocks); from anyone else the header is ignored. */
  trustedProxies: string[]
  providers: ProviderConfig[]
  models: ModelConfig[]
  routing: RoutingConfig
  log: { level: string }
  shutdown: { drainS: number }
  /** What a hostile or broken client or upstream may cost the gateway (`limits:` in the config). */
  limits: LimitsConfig
  /** The admin API's reach: `protect_metrics` puts /metrics and /status behind an admin token (read scope is enough). */
  admin: { protectMetrics: boolean }
  /** OpenTelemetry traces over OTLP/HTTP (`telemetry:`); absent, nothing is traced and no span is made. */
  telemetry?: TelemetryConfig
  /**
   * Batch work (tasks): items run at once at most, per account at most, how long results are kept, the largest
   * uploaded input file, every batch's completion window (OpenAI's 200 MB and 24 h by default), and what one account
   * may keep: uploaded files (their number and bytes) and batches not yet ended.
   */
  tasks: {
    concurrency: number; perAccount: number; retentionDays: number; maxFileBytes: number; windowS: number
    maxFilesPerAccount: number; maxStoredBytesPerAccount: number; maxOpenBatchesPerAccount: number
  }
  /**
   * Usage rows older than `requestsDays` whole UTC days are folded into daily per-key per-model totals (kept
   * forever); 0 keeps every row. The ledger (money) is never pruned.
   */
  retention: { requestsDays: number }
  /** Console sign-in: passwords and/or OpenID Connect (`auth:`); re-read on reload. */
  auth: AuthConfig
  /** How bills are made durable, and how instances sharing PostgreSQL tell each other they are alive (`ledger:`). */
  ledger: LedgerConfig
  /** Where the config came from, for messages. */
  source: string
}
