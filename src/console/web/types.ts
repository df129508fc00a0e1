/** The console API's JSON shapes. Money is always an exact decimal string (`*_usd`), never a number. */
export type Role = 'admin' | 'account-admin' | 'viewer'

export interface SessionInfo {
  user: {
    id: number
    name: string
    role: Role
    account: { id: number; name: string } | null
    /** What the role may do (the README's role matrix), e.g. `keys:write`. */
    permissions: string[]
    /** The roles this login may give to logins it creates, weakest last. */
    grantable_roles: Role[]
  }
  csrf_token: string
  expires_at: string
  models: string[]
}

export interface Account {
  id: number
  name: string
  balance_usd: string
  reserved_usd: string
  available_usd: string
  created_at: string
}

export interface Key {
  id: string
  account_id: number
  account?: string
  name: string | null
  prefix: string
  models: string[] | null
  status: 'active' | 'revoked' | 'expired'
  created_at: string
  last_used_at: string | null
  revoked_at: string | null
  rpm: number | null
  tpm: number | null
  concurrency: number | null
  budget_usd: string | null
  spent_usd: string
  expires_at: string | null
  allowed_ips: string[] | null
  project_id: number | null
}

export interface Totals {
  /** succeeded + refused + failed */
  requests: number
  succeeded: number
  refused: number
  failed: number
  input_tokens: number
  output_tokens: number
  spent_usd: string
}

export interface Day extends Totals {
  day: string
}

export interface Group extends Totals {
  id: string
  label: string
}

export interface UsageSummary {
  since: string
  until: string
  totals: Totals
  daily: Day[]
  by_model: Group[]
  by_operation: Group[]
  by_key: Group[]
  /** Each project's keys as they are now. */
  by_project: Group[]
  by_account?: Group[]
}

export interface RequestRow {
  id: number
  request_id: string
  at: string
  account_id: number
  account: string | null
  key_id: string
  key_name: string | null
  key_prefix: string | null
  model: string
  provider: string
  /** The kind of model call: chat, embeddings. */
  operation: string
  status: number
  outcome: 'succeeded' | 'refused' | 'failed'
  error_type: string | null
  input_tokens: number
  cached_input_tokens: number
  output_tokens: number
  cost_usd: string
  latency_ms: number
  stream: boolean
}

export interface RequestPage {
  requests: RequestRow[]
  next: string | null
}

export type HistoryEntry =
  | { kind: 'credit'; at: string; amount_usd: string; balance_after_usd: string; note: string; actor: string }
  | ({ kind: 'usage'; from: string; to: string; balance_after_usd: string } & Day)

export interface BalanceHistory {
  account: Account
  spend_since: string
  history: HistoryEntry[]
}

export interface User {
  id: number
  name: string
  role: Role
  account_id: number | null
  account: string | null
  created_at: string
}

export interface Prices {
  input_usd: string
  output_usd: string
  cached_input_usd: string
  cache_write_usd: string
  /** Image models priced per image: USD by `size/quality` (or size). */
  images_usd?: Record<string, string>
  /** Rerank models priced per search unit. */
  search_unit_usd?: string
}

export interface Model {
  id: string
  /** chat, or embedding: billed by input tokens only (no output, cache or output cap). */
  kind: string
  owned_by: string
  price: Prices
  batch_price: Prices | null
  context_window: number | null
  max_output_tokens: number
  reasoning: boolean
}

export interface RouteHealth {
  route: string
  state: 'closed' | 'open' | 'half-open'
  requests: number
  failures: number
  trips: number
  window_s: number
  open_until: string | null
  last_failure: string | null
}

export interface TaskCounts {
  total: number
  pending: number
  succeeded: number
  failed: number
  canceled: number
  expired: number
}

export interface Task {
  id: string
  kind: 'openai' | 'anthropic' | 'gemini'
  status: string
  account_id: number
  account?: string | null
  key_id: string
  endpoint: string
  model: string | null
  display_name: string | null
  counts: TaskCounts
  spent_usd: string
  created_at: string
  started_at: string | null
  finished_at: string | null
  expires_at: string
}

export interface TaskItem {
  position: number
  custom_id: string
  status: 'pending' | 'running' | 'succeeded' | 'errored' | 'canceled' | 'expired'
  status_code: number | null
  error: string | null
  cost_usd: string
  finished_at: string | null
}

/** GET /console/api/sign-in-methods: which ways the sign-in page offers. */
export interface SignInMethods {
  passwords: boolean
  single_sign_on: { name: string; url: string } | null
}

/** A field's value in an audit row: money as an exact decimal string, a time as ISO-8601, never a secret. */
export type AuditValue = string | number | boolean | null | string[]

export interface AuditEntry {
  id: number
  at: string
  action: string
  object_type: string
  object_id: string | null
  account_id: number | null
  actor: { kind: string; id: string | null; name: string; address: string | null }
  before: Record<string, AuditValue> | null
  after: Record<string, AuditValue> | null
}

export interface AuditPage {
  entries: AuditEntry[]
  next: string | null
}

export interface Project {
  id: number
  account_id: number
  name: string
  models: string[] | null
  rpm: number | null
  tpm: number | null
  concurrency: number | null
  allowed_ips: string[] | null
  keys: number
  created_at: string
}

export interface Budget {
  id: number
  account_id: number
  scope: 'account' | 'project' | 'key'
  project_id: number | null
  key_id: string | null
  period: string
  time_zone: string
  amount_usd: string
  spent_usd: string
  reserved_usd: string
  remaining_usd: string
  period_start: string | null
  resets_at: string | null
  created_at: string
}

export interface Webhook {
  id: string
  account_id: number
  project_id: string | null
  url: string
  events: string[]
  balance_below_usd: string | null
  expiry_days: number
  budget_percents: number[]
  created_at: string
}

export interface Delivery {
  id: string
  webhook_id: string
  event: string
  status: 'pending' | 'delivered' | 'failed'
  attempts: number
  created_at: string
  last_attempt_at: string | null
  next_attempt_at: string | null
  delivered_at: string | null
  last_status: number | null
  last_error: string | null
  payload: Record<string, unknown>
}
