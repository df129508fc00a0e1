import type { ErrorKind } from './errors.ts'

/**
 * What a failure means beyond its message, decided here once instead of in each place that reacts to it:
 * - `retry`: may the relay try the attempt again? `kind` follows the kind's rule (below); `never` for what another
 *   try cannot change; `elsewhere` for a route that must not be tried again in this request (our key refused there).
 * - `breaker`: does it count for the route's circuit breaker? `status` counts 429 and 5xx as the route's failure and
 *   anything else as its success; `ignore` counts nothing (not the upstream's doing: one tenant must not open a route).
 * - `billing`: a request that failed before its answer began costs `nothing`, except a client that left, billed for
 *   what was `produced` upstream by then (the input, at least, was read).
 */
export interface ErrorRule {
  retry: 'kind' | 'never' | 'elsewhere'
  breaker: 'status' | 'ignore'
  billing: 'nothing' | 'produced'
}

const byKind: ErrorRule = { retry: 'kind', breaker: 'status', billing: 'nothing' }
const notUpstreams: ErrorRule = { retry: 'never', breaker: 'ignore', billing: 'nothing' }

/** Every code the gateway itself gives a failure, with its rule; what is not said here follows the failure's kind. */
const errorRules = {
  // The caller and its credentials.
  missing_api_key: byKind,
  invalid_api_key: byKind,
  revoked_api_key: byKind,
  expired_api_key: byKind,
  missing_admin_token: byKind,
  admin_token_required: byKind,
  invalid_admin_token: byKind,
  read_only_token: byKind,
  too_many_unauthenticated: byKind,
  wrong_credentials: byKind,
  passwords_disabled: byKind,
  sign_in_throttled: byKind,
  sign_in_busy: byKind,
  signed_out: byKind,
  session_expired: byKind,
  api_key_not_accepted: byKind,
  csrf_failed: byKind,
  cross_site: byKind,
  not_permitted: byKind,
  address_not_allowed: byKind,
  no_permission_declared: byKind,
  // The request itself.
  body_timeout: byKind,
  request_too_large: byKind,
  headers_too_large: byKind,
  unsupported_media_type: byKind,
  json_too_deep: byKind,
  unknown_path: byKind,
  unknown_method: byKind,
  not_found: byKind,
  model_not_found: byKind,
  model_not_permitted: byKind,
  wrong_model_kind: byKind,
  unsupported_by_upstream: byKind,
  stateless_gateway: byKind,
  response_not_found: byKind,
  audio_too_long: byKind,
  unreadable_audio: byKind,
  // Batches and their files.
  batch_not_found: byKind,
  task_not_found: byKind,
  file_too_large: byKind,
  file_quota_exceeded: byKind,
  storage_quota_exceeded: byKind,
  too_many_open_batches: byKind,
  too_many_requests: byKind,
  metadata_too_large: byKind,
  invalid_batch_item: byKind,
  duplicate_custom_id: byKind,
  line_too_long: byKind,
  result_lost: byKind,
  interrupted: byKind,
  // Limits and money.
  rate_limit_exceeded: byKind,
  concurrency_limit_exceeded: byKind,
  insufficient_balance: byKind,
  budget_exceeded: byKind,
  database_unavailable: byKind,
  // Upstreams and routes.
  upstream_auth: { retry: 'elsewhere', breaker: 'status', billing: 'nothing' },
  upstream_malformed: byKind,
  upstream_unreachable: byKind,
  connect_timeout: byKind,
  first_byte_timeout: byKind,
  total_timeout: byKind,
  idle_timeout: byKind,
  no_route: byKind,
  no_healthy_route: byKind,
  // Nobody's answer: the client left or the gateway is stopping.
  client_closed: { ...notUpstreams, billing: 'produced' },
  shutting_down: notUpstreams,
  internal: byKind,
} as const satisfies Record<string, ErrorRule>

/** A code the gateway gives a failure itself. */
export type GatewayCode = keyof typeof errorRules

/** An upstream's own code, passed on as the upstream wrote it (scrubbed): the gateway gives it no meaning of its own. */
export type UpstreamCode = string & { readonly upstreamCode: true }

export type ErrorCode = GatewayCode | UpstreamCode

/** Mark a code that came from outside (an upstream's answer, a stored item's error): known codes keep their rule. */
export function readErrorCode(code: string): ErrorCode {
  return code as ErrorCode
}

/**
 * What each kind means for retrying, when its code says nothing of its own: the client's own mistakes (another
 * upstream would refuse them too) and the gateway's own failures (they happen again on any route) are not retried;
 * what an upstream or the network did is, and so is any other kind answered with a 5xx. A gateway failure
 * (`internal`) never counts against a route.
 */
const kindRules: Record<ErrorKind, { retry: 'yes' | 'no' | 'when 5xx'; breaker: 'status' | 'ignore' }> = {
  invalid_request: { retry: 'no', breaker: 'status' },
  authentication: { retry: 'when 5xx', breaker: 'status' },
  permission: { retry: 'when 5xx', breaker: 'status' },
  insufficient_balance: { retry: 'when 5xx', breaker: 'status' },
  not_found: { retry: 'when 5xx', breaker: 'status' },
  request_too_large: { retry: 'no', breaker: 'status' },
  rate_limit: { retry: 'yes', breaker: 'status' },
  upstream: { retry: 'yes', breaker: 'status' },
  upstream_unavailable: { retry: 'yes', breaker: 'status' },
  timeout: { retry: 'yes', breaker: 'status' },
  internal: { retry: 'no', breaker: 'ignore' },
}

/** The rule for a code; an upstream's own code, or none, follows its kind. */
function ruleOf(code: string | undefined): ErrorRule {
  return code !== undefined && Object.hasOwn(errorRules, code) ? errorRules[code as GatewayCode] : byKind
}

/** A failure as the rules read it. */
interface Failure {
  readonly kind: ErrorKind
  readonly status: number
  readonly code?: ErrorCode
}

/** May the relay try this failure again (on another route when there is one)? */
export function isRetryable(failure: Failure): boolean {
  const retry = ruleOf(failure.code).retry
  if (retry !== 'kind') return retry === 'elsewhere'
  const byItsKind = kindRules[failure.kind].retry
  return byItsKind === 'yes' || (byItsKind === 'when 5xx' && failure.status >= 500)
}

/** Must this route be left out of the rest of this request's attempts? */
export function excludesRoute(failure: Failure): boolean {
  return ruleOf(failure.code).retry === 'elsewhere'
}

/**
 * How an attempt's end counts for its route's breaker: `errorType` is the usage row's (a code, a kind, or none),
 * `kind` the failure's when there was one.
 */
export function breakerVerdict(
  status: number,
  errorType: string | undefined,
  kind: ErrorKind | undefined,
): 'success' | 'failure' | 'ignore' {
  if (status === 200) return 'success'
  if (ruleOf(errorType).breaker === 'ignore' || (kind !== undefined && kindRules[kind].breaker === 'ignore')) return 'ignore'
  return status >= 500 || status === 429 ? 'failure' : 'success'
}

/** Is a failure before the answer began billed for what the upstream produced by then? */
export function billsProduced(failure: Failure): boolean {
  return ruleOf(failure.code).billing === 'produced'
}
