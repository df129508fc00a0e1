import type { Static } from 'elysia'
import { invalidRequest } from '../../core/errors.ts'
import type { Actor } from '../../domain/actor.ts'
import { deliveryJson, webhookJson } from '../../domain/alerts/present.ts'
import type { DeliveryStatus, WebhookRecord } from '../../domain/alerts/records.ts'
import type { Services } from '../../edge/services.ts'
import { notFound } from './respond.ts'
import { findAccount } from './scope.ts'
import { readNewWebhook } from './webhook-input.ts'
import type { newWebhookBody } from './webhook-schemas.ts'

/**
 * What the console's and the admin API's webhook routes do, once their gate has said who asks (`own`: the one account
 * the caller may see, undefined for an admin or an admin token). Another account's webhook is a 404, like a missing one.
 */
export function webhookActions(services: Services) {
  const { webhooks } = services.alerting
  const visibleWebhook = async (own: number | undefined, id: string): Promise<WebhookRecord> => {
    const webhook = id.length <= 64 ? await services.store.webhooks.findById(id) : undefined
    if (!webhook || (own !== undefined && webhook.accountId !== own)) throw notFound('No such webhook.')
    return webhook
  }
  return {
    async list(own: number | undefined, accountId: string | undefined) {
      const account = accountId === undefined ? own : (await findAccount(services, own, accountId)).id
      return (await services.store.webhooks.list(account)).reverse().map(webhookJson)
    },
    async create(own: number | undefined, actor: Actor, body: Static<typeof newWebhookBody>) {
      const accountId = body.account_id ?? own
      if (accountId === undefined || accountId === null)
        throw invalidRequest(`Missing 'account_id': the account whose alerts go there.`, 'account_id')
      const account = await findAccount(services, own, accountId)
      const { record, secret } = await webhooks.create(readNewWebhook(body, account.id), actor)
      return { webhook: webhookJson(record), secret }
    },
    async remove(own: number | undefined, actor: Actor, id: string) {
      const webhook = await visibleWebhook(own, id)
      await webhooks.delete(webhook.id, actor)
      return { deleted: true as const, id: webhook.id }
    },
    async deliveries(own: number | undefined, id: string, status: DeliveryStatus | undefined) {
      const webhook = await visibleWebhook(own, id)
      return (await services.store.webhooks.listDeliveries({ webhookId: webhook.id, status }, 100)).map(deliveryJson)
    },
  }
}
