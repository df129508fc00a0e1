import { t, type Static, type TSchema } from 'elysia'
import type { accountJson, creditJson, dayJson, groupJson, keyJson, requestJson, totalsJson, userJson } from '../../domain/presenters.ts'

/**
 * The console API's shapes as `t` (TypeBox) schemas: Elysia checks request bodies, queries and path parameters
 * against them, cleans responses to them, and @elysiajs/openapi publishes them at /docs/json. The response
 * schemas restate domain/presenters.ts; the checks at the end of this file fail to compile if the two drift. Tasks'
 * answers are task-schemas.ts, usage totals and the request log usage-schemas.ts; this file re-exports both.
 */
import { nullable, time, usd, whole } from './schema-parts.ts'
import { day, group, request, totals, totalsFields } from './usage-schemas.ts'

export * from './request-schemas.ts'
export * from './task-schemas.ts'
export * from './usage-schemas.ts'

// —— Responses ——

export const consoleError = t.Object(
  {
    error: t.Object({
      message: t.String(),
      code: t.String({ description: 'Machine-readable, e.g. not_found, csrf_failed, signed_out' }),
      field: t.Optional(t.String({ description: 'The request field at fault' })),
    }),
  },
  { description: 'Every console error has this shape' },
)

export const account = t.Object({
  id: whole(),
  name: t.String(),
  balance_usd: usd('Credited minus spent'),
  reserved_usd: usd('Held for requests in flight'),
  available_usd: usd('What new requests may spend'),
  created_at: time('When the account was created'),
})

export const key = t.Object({
  id: t.String(),
  account_id: whole(),
  account: t.Optional(t.String({ description: "The account's name" })),
  name: nullable(t.String()),
  prefix: t.String({ description: 'The first characters of the secret, to recognise it by' }),
  models: nullable(t.Array(t.String())),
  status: t.Union([t.Literal('active'), t.Literal('revoked'), t.Literal('expired')]),
  created_at: time('When the key was created'),
  last_used_at: nullable(t.String({ format: 'date-time' })),
  revoked_at: nullable(t.String({ format: 'date-time' })),
  rpm: nullable(whole()),
  tpm: nullable(whole()),
  concurrency: nullable(whole()),
  budget_usd: nullable(usd('The most the key may spend')),
  spent_usd: usd('Spent so far'),
  expires_at: nullable(t.String({ format: 'date-time' })),
  project_id: nullable(whole({ description: 'The project it belongs to' })),
  allowed_ips: nullable(
    t.Array(t.String(), { description: 'The addresses and CIDR blocks the key may be used from; null for every address' }),
  ),
})

export const project = t.Object({
  id: whole(),
  account_id: whole(),
  name: t.String(),
  models: nullable(t.Array(t.String())),
  rpm: nullable(whole()),
  tpm: nullable(whole()),
  concurrency: nullable(whole()),
  allowed_ips: nullable(
    t.Array(t.String(), {
      description: "The addresses and CIDR blocks its keys may be used from (as well as each key's own); null for every address",
    }),
  ),
  keys: whole({ description: 'Keys in it, not revoked' }),
  created_at: time('When the project was created'),
})

export const budget = t.Object({
  id: whole(),
  account_id: whole(),
  scope: t.Union([t.Literal('account'), t.Literal('project'), t.Literal('key')]),
  project_id: nullable(whole()),
  key_id: nullable(t.String()),
  period: t.String({ description: 'day, week, month, a fixed window (5h) or total' }),
  time_zone: t.String(),
  amount_usd: usd('The most that may be spent per period'),
  spent_usd: usd('Spent in the current period'),
  reserved_usd: usd('Held for requests in flight'),
  remaining_usd: usd('What is left of the current period'),
  period_start: nullable(t.String({ format: 'date-time', description: 'null for total, and for a window no request has opened yet' })),
  resets_at: nullable(
    t.String({ format: 'date-time', description: 'When spent starts again at zero; null for total and a window not opened' }),
  ),
  created_at: time('When the budget was created'),
})

export const deletedObject = t.Object({ deleted: t.Literal(true), id: whole() })

export const createdKey = t.Object({ key, secret: t.String({ description: 'The secret, shown this once only' }) })

const role = t.Union([t.Literal('admin'), t.Literal('account-admin'), t.Literal('viewer')], {
  description: "What the login may do: see the README's role matrix",
})

export const user = t.Object({
  id: whole(),
  name: t.String(),
  role,
  account_id: nullable(whole()),
  account: nullable(t.String()),
  created_at: time('When the login was created'),
})

export const createdUser = t.Object({
  user,
  password: t.Optional(t.String({ description: 'A generated password, returned this once only' })),
})

export const deletedUser = t.Object({ deleted: t.Literal(true), id: whole() })

export const session = t.Object({
  user: t.Object({
    id: whole(),
    name: t.String(),
    role,
    account: nullable(t.Object({ id: whole(), name: t.String() })),
    permissions: t.Array(t.String(), {
      description: "What the login's role may do (the README's role matrix): the console shows only those actions",
    }),
    grantable_roles: t.Array(role, { description: 'The roles this login may give to logins it creates; empty without users:write' }),
  }),
  csrf_token: t.String({ description: 'Send it back as the x-csrf-token header on every state change' }),
  expires_at: time('When the session ends unless used'),
  models: t.Array(t.String(), { description: 'The configured model IDs' }),
})

export const signedOut = t.Object({ signed_out: t.Literal(true) })

export const unlocked = t.Object({
  unlocked: t.Literal(true),
  name: t.String({ description: 'The login whose failed sign-ins were forgotten' }),
})

const perMillion = (what: string) => usd(`${what} per 1M tokens`)
const prices = t.Object({
  input_usd: perMillion('Input'),
  output_usd: perMillion('Output'),
  cached_input_usd: perMillion('Cached input'),
  cache_write_usd: perMillion('Cache writes'),
  images_usd: t.Optional(
    t.Record(t.String(), usd('One image'), { description: 'Image models priced per image: USD by `size/quality` (or size)' }),
  ),
  search_unit_usd: t.Optional(usd('One search unit (rerank models priced per search unit)')),
})

export const model = t.Object({
  id: t.String(),
  kind: t.String({ description: 'What the model serves: chat, or embedding (billed by input tokens only)' }),
  owned_by: t.String(),
  price: prices,
  batch_price: nullable(
    t.Intersect([prices], { description: 'What batch items pay, when the operator set a batch price; null: the same as `price`' }),
  ),
  context_window: nullable(whole({ description: 'Tokens in and out together; null when not configured' })),
  max_output_tokens: whole(),
  reasoning: t.Boolean({ description: 'Thinks before answering (hidden reasoning tokens are billed as output)' }),
})

export const route = t.Object({
  route: t.String({ description: 'provider/upstream-model' }),
  state: t.Union([t.Literal('closed'), t.Literal('open'), t.Literal('half-open')], {
    description: 'closed: in rotation; open: skipped after failures; half-open: one probe may go',
  }),
  requests: whole({ description: 'Outcomes in the current window' }),
  failures: whole({ description: 'Failures in the current window' }),
  trips: whole({ description: 'Times taken out of rotation since start' }),
  window_s: whole({ description: 'The sliding window `requests` and `failures` count over, in seconds (routing.window_s)' }),
  open_until: nullable(t.String({ format: 'date-time', description: 'While open: when a probe may go' })),
  last_failure: nullable(t.String()),
})

export const credit = t.Object({
  kind: t.Literal('credit'),
  at: time('When the credit was made'),
  amount_usd: usd('The change'),
  balance_after_usd: usd('The balance after it'),
  note: t.String(),
  actor: t.String({ description: 'Who made it' }),
})

export const accountHistory = t.Object({
  account,
  spend_since: time('The start of the spend history (the last 90 days)'),
  history: t.Array(
    t.Union([
      credit,
      t.Object({
        kind: t.Literal('usage'),
        day: day.properties.day,
        from: time('The first request of this spending (for a day folded into daily totals, the start of the day)'),
        to: time('The last request of this spending (for a folded day, its end)'),
        ...totalsFields,
        balance_after_usd: usd('The balance after this spending'),
      }),
    ]),
    {
      description: 'Credits, and spending per day (split where a credit fell within the day), newest first in the order they happened',
    },
  ),
})

/** The error answers a signed-in route can give, for the documentation (errors never pass through Elysia's checks). */
export const errorResponses = { 400: consoleError, 401: consoleError, 403: consoleError, 404: consoleError }

// —— Presenters and schemas agree ——

/** True when a presenter's output has exactly the schema's fields, each of a type the schema accepts. */
type Matches<Output, Schema extends TSchema> = [Output] extends [Static<Schema>]
  ? [keyof Output] extends [keyof Static<Schema>]
    ? [keyof Static<Schema>] extends [keyof Output]
      ? true
      : false
    : false
  : false
const agreement: [
  Matches<ReturnType<typeof accountJson>, typeof account>,
  Matches<ReturnType<typeof keyJson>, typeof key>,
  Matches<ReturnType<typeof userJson>, typeof user>,
  Matches<ReturnType<typeof creditJson>, typeof credit>,
  Matches<ReturnType<typeof totalsJson>, typeof totals>,
  Matches<ReturnType<typeof dayJson>, typeof day>,
  Matches<ReturnType<typeof groupJson>, typeof group>,
  Matches<ReturnType<typeof requestJson>, typeof request>,
] = [true, true, true, true, true, true, true, true]
void agreement
