import { t } from 'elysia'
import { idOf, nullable, time, usd } from './schema-parts.ts'

/** The console's and the admin API's webhook shapes (the presenters in domain/alerts/present.ts agree: webhook-routes.ts). */
const event = t.Union([t.Literal('balance.below'), t.Literal('budget.threshold'), t.Literal('key.expiring')], {
  description: 'What the alert is about (domain/alerts/records.ts alertEvents)',
})
const whole = () => t.Integer()

export const webhook = t.Object({
  id: t.String(),
  account_id: whole(),
  project_id: nullable(t.String({ description: "A project's own webhook; null for the whole account's" })),
  url: t.String({ description: 'Where deliveries are POSTed' }),
  events: t.Array(event),
  balance_below_usd: nullable(usd('balance.below is sent once the balance falls below this')),
  expiry_days: whole(),
  budget_percents: t.Array(whole(), { description: 'The percentages of a budget that are told of, once each per period' }),
  created_at: time('When the webhook was made'),
})

export const createdWebhook = t.Object({
  webhook,
  secret: t.String({ description: "The signing secret, shown this once only: verify each delivery's Tollgate-Signature with it" }),
})

export const delivery = t.Object({
  id: t.String({ description: "The delivery id, also the body's `id` and the Tollgate-Delivery header" }),
  webhook_id: t.String(),
  event,
  status: t.Union([t.Literal('pending'), t.Literal('delivered'), t.Literal('failed')]),
  attempts: whole(),
  created_at: time('When the alert was decided on'),
  last_attempt_at: nullable(t.String({ format: 'date-time' })),
  next_attempt_at: nullable(t.String({ format: 'date-time', description: 'When a pending delivery is tried next' })),
  delivered_at: nullable(t.String({ format: 'date-time' })),
  last_status: nullable(whole()),
  last_error: nullable(t.String()),
  payload: t.Record(t.String(), t.Unknown(), { description: 'The body sent' }),
})

export const newWebhookBody = t.Object({
  account_id: t.Optional(
    nullable(
      t.Union([t.Integer(), t.String()], {
        description: "The account whose alerts go there. Required for an admin; an account admin's webhook is always their own account's.",
      }),
    ),
  ),
  url: t.String({
    description: 'http or https; loopback and private addresses only when the operator allows them',
    examples: ['https://hooks.example.com/tollgate'],
  }),
  events: t.Optional(t.Array(t.String(), { description: 'What to be told of; every event when absent' })),
  balance_below_usd: t.Optional(
    nullable(t.String({ description: 'balance.below: the balance to be told below, in USD', examples: ['10'] })),
  ),
  expiry_days: t.Optional(t.Integer({ description: 'key.expiring: how many days before a key expires (7 when absent)' })),
  budget_percents: t.Optional(
    t.Array(t.Integer(), { description: 'budget.threshold: the percentages told of (50, 80 and 100 when absent)' }),
  ),
})

export const deliveriesQuery = t.Object({
  status: t.Optional(
    t.Union([t.Literal('pending'), t.Literal('delivered'), t.Literal('failed')], { description: 'Only deliveries in this state' }),
  ),
})

export const webhookParams = t.Object({ id: idOf('webhook') })
