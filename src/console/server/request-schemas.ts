import { t, type TSchema } from 'elysia'
import { idOf, nullable, logPageQuery, timeRange } from './schema-parts.ts'

/** What the console API takes: bodies, queries and path parameters (schemas.ts re-exports these). */

/**
 * A route's JSON body schema. `parse: 'json'` is for the documentation only (it makes @elysiajs/openapi list
 * the body as application/json): the console's own parser (body.ts) runs first and always answers, so
 * Elysia's never reads a body.
 */
export const jsonBody = <T extends TSchema>(body: T) => ({ body, parse: 'json' as const })

/** The limit and cursor of the request log are checked by the route (usage-routes.ts), which names the field. */

export const idParams = (what: string) => t.Object({ id: idOf(what) })

/** A per-key limit: a whole number, or null (or absent) for none. */
const limit = (description: string) => t.Optional(nullable(t.Integer({ minimum: 1, maximum: 1_000_000_000, description })))

export const newKeyBody = t.Object({
  account_id: t.Optional(
    nullable(
      t.Union([t.Integer(), t.String()], {
        description: "The account the key belongs to. Required for an admin; an account user's key always goes to their own account.",
      }),
    ),
  ),
  name: t.Optional(nullable(t.String({ maxLength: 100, description: 'A label to recognise the key by' }))),
  models: t.Optional(
    nullable(
      t.Array(t.String(), {
        minItems: 1,
        description: 'Configured model IDs the key may use; null for all of them, including ones added later',
      }),
    ),
  ),
  rpm: limit('Requests per minute'),
  tpm: limit('Tokens per minute'),
  concurrency: limit('Requests in flight at once'),
  budget_usd: t.Optional(
    nullable(t.String({ description: 'The most the key may spend, in USD (a decimal string greater than 0)', examples: ['5.50'] })),
  ),
  expires_at: t.Optional(
    nullable(t.String({ description: 'When the key stops working (ISO-8601, in the future)', examples: ['2027-01-31T00:00:00Z'] })),
  ),
  project_id: t.Optional(nullable(t.Integer({ description: "The project of the key's account it belongs to; null for none" }))),
  allowed_ips: t.Optional(
    nullable(
      t.Array(t.String(), {
        description: 'The addresses and CIDR blocks (IPv4 or IPv6) the key may be used from; null for every address. Others get a 403.',
        examples: [['203.0.113.7', '10.0.0.0/8', '2001:db8::/32']],
      }),
    ),
  ),
})

/** A key's changes (the console's and the admin API's PATCH): an absent field stays as it is, null clears it. */
export const keyChangesBody = t.Object({
  name: newKeyBody.properties.name,
  models: newKeyBody.properties.models,
  rpm: newKeyBody.properties.rpm,
  tpm: newKeyBody.properties.tpm,
  concurrency: newKeyBody.properties.concurrency,
  budget_usd: newKeyBody.properties.budget_usd,
  expires_at: newKeyBody.properties.expires_at,
  allowed_ips: newKeyBody.properties.allowed_ips,
  project_id: newKeyBody.properties.project_id,
})

/** A project's model list and shared limits, as a key's. */
const projectFields = {
  models: newKeyBody.properties.models,
  rpm: limit('Requests per minute, shared by all its keys'),
  tpm: limit('Tokens per minute, shared by all its keys'),
  concurrency: limit('Requests in flight at once, shared by all its keys'),
  allowed_ips: t.Optional(
    nullable(
      t.Array(t.String(), {
        description:
          "The addresses and CIDR blocks its keys may be used from; null for every address. A key's own list applies too: an address must pass both.",
        examples: [['203.0.113.0/24', '2001:db8::/32']],
      }),
    ),
  ),
}

export const newProjectBody = t.Object({
  account_id: newKeyBody.properties.account_id,
  name: t.String({ minLength: 1, maxLength: 100, description: 'Unique within its account' }),
  ...projectFields,
})

export const projectChangesBody = t.Object({ name: t.Optional(newProjectBody.properties.name), ...projectFields })

const budgetFields = {
  amount_usd: t.String({
    description: 'The most that may be spent per period, in USD (a decimal string greater than 0)',
    examples: ['50'],
  }),
  period: t.String({
    description:
      'day, week or month (calendar, in time_zone), a fixed window such as 5h, 30m or 7d (starting with its first request), or total',
    examples: ['month', '5h'],
  }),
  time_zone: t.String({ description: 'An IANA zone for calendar periods; UTC when absent', examples: ['Europe/Berlin'] }),
}

export const newBudgetBody = t.Object({
  account_id: newKeyBody.properties.account_id,
  scope: t.Union([t.Literal('account'), t.Literal('project'), t.Literal('key')], { description: 'What the budget applies to' }),
  project_id: t.Optional(t.Integer({ description: 'With scope project' })),
  key_id: t.Optional(t.String({ description: 'With scope key' })),
  amount_usd: budgetFields.amount_usd,
  period: budgetFields.period,
  time_zone: t.Optional(budgetFields.time_zone),
})

export const budgetChangesBody = t.Object({
  amount_usd: t.Optional(budgetFields.amount_usd),
  period: t.Optional(budgetFields.period),
  time_zone: t.Optional(budgetFields.time_zone),
})

export const newAccountBody = t.Object({
  name: t.String({ description: '1-64 letters, digits, . _ @ or -' }),
  balance_usd: t.Optional(
    nullable(t.String({ description: 'Opening balance in USD (a decimal string); 0 when absent', examples: ['100'] })),
  ),
})

export const creditBody = t.Object({
  amount_usd: t.String({ description: 'USD to add (negative to take away; never below zero)', examples: ['25', '-1.5'] }),
  note: t.String({
    minLength: 1,
    maxLength: 200,
    pattern: '\\S',
    description: 'Why the balance changes; kept in the ledger',
    error: "Missing 'note': say why the balance changes (it is kept in the ledger), in at most 200 characters.",
  }),
})

export const newUserBody = t.Object({
  name: t.String({ description: '1-64 letters, digits, . _ @ or -' }),
  role: t.Optional(
    t.Union([t.Literal('admin'), t.Literal('account-admin'), t.Literal('viewer')], {
      description: 'Default viewer, the least privilege. An account-admin may create account-admin and viewer logins only',
      error: `Invalid value for 'role': "admin", "account-admin" or "viewer".`,
    }),
  ),
  account_id: t.Optional(
    nullable(
      t.Union([t.Integer(), t.String()], {
        description:
          "Required for account-admin and viewer when an admin creates them; an account-admin's logins are always of its own account",
      }),
    ),
  ),
  password: t.Optional(
    nullable(t.String({ description: 'At least 12 characters; absent or empty to have one generated and returned once' })),
  ),
})

export const signInBody = t.Object({ username: t.String(), password: t.String() })

export const ownPasswordBody = t.Object({
  current_password: t.String({ description: 'The password you signed in with' }),
  new_password: t.String({ description: 'At least 12 characters' }),
})

export const passwordResetBody = t.Object({
  password: t.Optional(
    nullable(t.String({ description: 'At least 12 characters; absent or empty to have one generated and returned once' })),
  ),
})

export const tasksQuery = t.Object({
  account_id: t.Optional(t.String({ description: "Only this account's tasks (an account user's are always their own)" })),
  limit: t.Optional(t.String({ description: 'Rows per page, 1 to 200; 50 when absent' })),
  before: t.Optional(t.String({ description: 'The `next` value of the previous page' })),
})

export const itemsQuery = t.Object({
  after: t.Optional(t.String({ description: 'The `next` value of the previous page (an item position)' })),
  limit: t.Optional(t.String({ description: 'Items per page, 1 to 500; 100 when absent' })),
})

export const accountQuery = t.Object({
  account_id: t.Optional(t.String({ description: "An account's ID; admins only, or the viewer's own" })),
})

export const usageQuery = t.Object({
  account_id: t.Optional(t.String({ description: "Only this account (an account user's filter is always their own)" })),
  key_id: t.Optional(t.String({ description: 'Only this key' })),
  project_id: t.Optional(t.String({ description: "Only this project's keys" })),
  model: t.Optional(t.String({ description: 'Only this model ID' })),
  status: t.Optional(t.String({ description: 'ok, error, 2xx, 4xx, 5xx or a status code such as 429' })),
  ...timeRange,
})

export const requestsQuery = t.Composite([usageQuery, logPageQuery])
