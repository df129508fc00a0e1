import type { ErrorCode } from './error-codes.ts'

/**
 * Protocol-neutral errors. Each client protocol renders a GatewayError in its own wire shape
 * (see protocols/<name>/encode-error.ts); the status code is decided here, once.
 */
export type ErrorKind =
  | 'invalid_request'
  | 'authentication'
  | 'permission'
  | 'insufficient_balance'
  | 'not_found'
  | 'request_too_large'
  | 'rate_limit'
  | 'upstream'
  | 'upstream_unavailable'
  | 'timeout'
  | 'internal'

const statusByKind: Record<ErrorKind, number> = {
  invalid_request: 400,
  authentication: 401,
  permission: 403,
  insufficient_balance: 403,
  not_found: 404,
  request_too_large: 413,
  rate_limit: 429,
  upstream: 502,
  upstream_unavailable: 503,
  timeout: 504,
  internal: 500,
}

/** One rate-limit window as a client should see it: what the limit is, what is left, and when it refills. */
export interface RateLimitWindow {
  limit: number
  remaining: number
  /** Milliseconds until the window is fully replenished (0 when nothing is counted in it). */
  resetMs: number
}

/**
 * A key's rate-limit state, protocol-neutral: each client protocol renders it in its own headers
 * (`x-ratelimit-*` for OpenAI, `anthropic-ratelimit-*` for Anthropic).
 */
export interface RateLimitState {
  requests?: RateLimitWindow
  tokens?: RateLimitWindow
  /** When the state was taken (epoch ms): absolute reset times are computed from it. */
  at: number
}

export interface GatewayErrorOptions {
  /** The request field at fault, e.g. `messages[1].role`. */
  param?: string
  /** A machine-readable code such as `model_not_found`; what it means for retries, breakers and bills: error-codes.ts. */
  code?: ErrorCode
  /** Override the status the kind implies (an upstream 429 relayed as is, say). */
  status?: number
  /** Seconds the client should wait before retrying. */
  retryAfter?: number
  /** Extra headers the error response must carry. */
  headers?: Record<string, string>
  /** The gateway's own per-key limits, for the protocol's rate-limit headers. */
  rateLimit?: RateLimitState
  /** What was actually thrown, kept for the log line (report-failure.ts); never shown to the client. */
  cause?: unknown
  /** What the operator needs and the client must not see (an upstream's refusal of our key, scrubbed): logged only. */
  logDetail?: string
}

export class GatewayError extends Error {
  readonly kind: ErrorKind
  readonly status: number
  readonly param?: string
  readonly code?: ErrorCode
  readonly retryAfter?: number
  readonly headers?: Record<string, string>
  readonly rateLimit?: RateLimitState
  readonly logDetail?: string

  constructor(kind: ErrorKind, message: string, options: GatewayErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
    this.name = 'GatewayError'
    this.kind = kind
    this.status = options.status ?? statusByKind[kind]
    this.param = options.param
    this.code = options.code
    this.retryAfter = options.retryAfter
    this.headers = options.headers
    this.rateLimit = options.rateLimit
    this.logDetail = options.logDetail
  }
}

/** The client went away before its answer was complete (499, nginx's "client closed request"). */
export function clientClosed(): GatewayError {
  return new GatewayError('upstream', 'Client closed the request', { code: 'client_closed', status: 499 })
}

export function invalidRequest(message: string, param?: string): GatewayError {
  return new GatewayError('invalid_request', message, { param })
}

/**
 * Anything thrown that is not a GatewayError becomes an internal error: its message never reaches the client, but it
 * is kept as the cause, so the one log line about it (report-failure.ts) can say what happened and where.
 */
export function toGatewayError(error: unknown): GatewayError {
  if (error instanceof GatewayError) return error
  return new GatewayError('internal', 'Internal gateway error', { cause: error })
}
