import { Elysia, t } from 'elysia'
import type { Services } from '../../edge/services.ts'
import * as schema from '../server/schemas.ts'
import { webhookActions } from '../server/webhook-actions.ts'
import { webhookNotes } from '../server/webhook-routes.ts'
import { createdWebhook, deliveriesQuery, delivery, newWebhookBody, webhook, webhookParams } from '../server/webhook-schemas.ts'
import { adminDetail, withAdminToken } from './gate.ts'

const writes = 'Needs a token with scope "full".'

/** Webhooks through the admin API: the console's actions, for every account. */
export function adminWebhookRoutes(services: Services) {
  const actions = webhookActions(services)
  return new Elysia({ name: 'admin-api-webhooks' })
    .use(withAdminToken(services))
    .get('/admin/api/webhooks', ({ query }) => actions.list(undefined, query.account_id), {
      permission: 'webhooks:read',
      query: t.Object({ account_id: t.Optional(t.String({ description: "Only this account's webhooks" })) }),
      response: { 200: t.Array(webhook), ...schema.errorResponses },
      detail: adminDetail('List webhooks, newest first'),
    })
    .post('/admin/api/webhooks', async ({ actor, body, status }) => status(201, await actions.create(undefined, actor, body)), {
      permission: 'webhooks:write',
      ...schema.jsonBody(newWebhookBody),
      response: { 201: createdWebhook, ...schema.errorResponses, 409: schema.consoleError },
      detail: adminDetail('Create a webhook', `account_id is required. ${webhookNotes.create} ${writes}`),
    })
    .delete('/admin/api/webhooks/:id', ({ actor, params }) => actions.remove(undefined, actor, params.id), {
      permission: 'webhooks:write',
      params: webhookParams,
      response: { 200: t.Object({ deleted: t.Literal(true), id: t.String() }), ...schema.errorResponses },
      detail: adminDetail('Delete a webhook', `${webhookNotes.remove} ${writes}`),
    })
    .get('/admin/api/webhooks/:id/deliveries', ({ params, query }) => actions.deliveries(undefined, params.id, query.status), {
      permission: 'webhooks:read',
      params: webhookParams,
      query: deliveriesQuery,
      response: { 200: t.Array(delivery), ...schema.errorResponses },
      detail: adminDetail("A webhook's deliveries", webhookNotes.deliveries),
    })
}
