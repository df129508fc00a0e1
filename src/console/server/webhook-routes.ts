import { Elysia, t } from 'elysia'
import type { Services } from '../../edge/services.ts'
import * as schema from './schemas.ts'
import { ownAccountId } from './scope.ts'
import { signedIn } from './signed-in.ts'
import { webhookActions } from './webhook-actions.ts'
import { createdWebhook, deliveriesQuery, delivery, newWebhookBody, webhook, webhookParams } from './webhook-schemas.ts'

const tags = ['Webhooks']
export const webhookNotes = {
  create:
    'The answer holds the signing secret, the only time it is ever shown. The URL is refused when it points at loopback ' +
    'or a private range, unless the operator set webhooks.allow_private_addresses.',
  remove: 'Its pending deliveries are not sent, and its delivery records go with it.',
  deliveries: 'The last 100, newest first: each alert, its attempts, and how the last one ended.',
}

/** Webhooks in the console: an account admin manages its own account's, an admin every account's. */
export function webhookRoutes(services: Services) {
  const actions = webhookActions(services)
  return new Elysia({ name: 'console-webhooks' })
    .use(signedIn(services))
    .get('/console/api/webhooks', ({ viewer, query }) => actions.list(ownAccountId(viewer), query.account_id), {
      permission: 'webhooks:read',
      query: schema.accountQuery,
      response: { 200: t.Array(webhook), ...schema.errorResponses },
      detail: { tags, summary: 'List webhooks, newest first' },
    })
    .post(
      '/console/api/webhooks',
      async ({ viewer, actor, body, status }) => status(201, await actions.create(ownAccountId(viewer), actor, body)),
      {
        permission: 'webhooks:write',
        ...schema.jsonBody(newWebhookBody),
        response: { 201: createdWebhook, ...schema.errorResponses, 409: schema.consoleError },
        detail: { tags, summary: 'Create a webhook', description: webhookNotes.create },
      },
    )
    .delete('/console/api/webhooks/:id', ({ viewer, actor, params }) => actions.remove(ownAccountId(viewer), actor, params.id), {
      permission: 'webhooks:write',
      params: webhookParams,
      response: { 200: t.Object({ deleted: t.Literal(true), id: t.String() }), ...schema.errorResponses },
      detail: { tags, summary: 'Delete a webhook', description: webhookNotes.remove },
    })
    .get(
      '/console/api/webhooks/:id/deliveries',
      ({ viewer, params, query }) => actions.deliveries(ownAccountId(viewer), params.id, query.status),
      {
        permission: 'webhooks:read',
        params: webhookParams,
        query: deliveriesQuery,
        response: { 200: t.Array(delivery), ...schema.errorResponses },
        detail: { tags, summary: "A webhook's deliveries", description: webhookNotes.deliveries },
      },
    )
}
