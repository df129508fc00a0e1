import type { Static } from 'elysia'
import { type GatewayError, invalidRequest } from '../../core/errors.ts'
import type { AlertEvent } from '../../domain/alerts/records.ts'
import type { NewWebhookInput, WebhookInputError } from '../../domain/alerts/webhook-service.ts'
import { readUsd } from './key-input.ts'
import type { newWebhookBody } from './webhook-schemas.ts'

/** A new webhook's fields as values; whether they are allowed is WebhookService's to say. */
export function readNewWebhook(body: Static<typeof newWebhookBody>, accountId: number): NewWebhookInput {
  const below = body.balance_below_usd?.trim()
  return {
    accountId,
    url: body.url,
    events: body.events as AlertEvent[] | undefined,
    balanceBelow: below ? readUsd(below, 'balance_below_usd') : null,
    expiryDays: body.expiry_days,
    budgetPercents: body.budget_percents,
  }
}

const bodyNames: Record<WebhookInputError['field'], string> = {
  url: 'url',
  events: 'events',
  balanceBelow: 'balance_below_usd',
  expiryDays: 'expiry_days',
  budgetPercents: 'budget_percents',
}

/** WebhookService's refusal in the APIs' words: a 400 naming the body's field. */
export function describeWebhookInputError(error: WebhookInputError): GatewayError {
  const field = bodyNames[error.field]
  return invalidRequest(`Invalid value for '${field}': it ${error.rule}.`, field)
}
