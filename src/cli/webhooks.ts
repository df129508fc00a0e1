import { parseAmount, requireAccount } from '../domain/accounts.ts'
import { deliveryJson, webhookJson } from '../domain/alerts/present.ts'
import type { AlertEvent, DeliveryStatus } from '../domain/alerts/records.ts'
import { type WebhookInputError, WebhookInputError as InputError, type WebhookService } from '../domain/alerts/webhook-service.ts'
import type { Store } from '../domain/repositories.ts'
import { changeByCli } from './actor.ts'
import { flagInteger, flagString, type ParsedArgs, UsageError } from './args.ts'
import { formatTime, printResult, table } from './output.ts'

const flagNames: Record<WebhookInputError['field'], string> = {
  url: 'url',
  events: 'events',
  balanceBelow: 'balance-below',
  expiryDays: 'expiry-days',
  budgetPercents: 'budget-percents',
}
const list = (text: string | undefined) =>
  text
    ?.split(',')
    .map((item) => item.trim())
    .filter(Boolean)

/** `tollgate webhook create|list|delete|deliveries`: where an account's alerts go (WebhookService, as the console's). */
export async function runWebhookCommand(store: Store, webhooks: WebhookService, args: ParsedArgs, json: boolean): Promise<void> {
  const [, action, operand] = args.positional
  switch (action) {
    case 'create': {
      const account = await requireAccount(store.accounts, flagString(args, 'account')!)
      const below = flagString(args, 'balance-below')
      try {
        const { record, secret } = await webhooks.create(
          {
            accountId: account.id,
            url: flagString(args, 'url') ?? '',
            events: list(flagString(args, 'events')) as AlertEvent[] | undefined,
            balanceBelow: below === undefined ? null : parseAmount(below),
            expiryDays: flagInteger(args, 'expiry-days'),
            budgetPercents: list(flagString(args, 'budget-percents'))?.map(Number),
          },
          changeByCli(),
        )
        return printResult(
          json,
          { ...webhookJson(record), secret },
          () =>
            `created webhook ${record.id} for ${account.name} → ${record.url} (${record.events.join(', ')})\n\n  ${secret}\n\n` +
            "This signing secret is shown only now: the receiver verifies each delivery's Tollgate-Signature with it.",
        )
      } catch (error) {
        if (error instanceof InputError) throw new UsageError(`--${flagNames[error.field]} ${error.rule}`)
        throw error
      }
    }
    case 'list': {
      const name = flagString(args, 'account')
      const found = await store.webhooks.list(name === undefined ? undefined : (await requireAccount(store.accounts, name)).id)
      return printResult(json, found.map(webhookJson), () =>
        found.length === 0
          ? 'no webhooks'
          : table([
              ['ID', 'ACCOUNT', 'URL', 'EVENTS', 'CREATED'],
              ...found.map((webhook) => [
                webhook.id,
                String(webhook.accountId),
                webhook.url,
                webhook.events.join(','),
                formatTime(webhook.createdAt),
              ]),
            ]),
      )
    }
    case 'delete': {
      await webhooks.delete(operand!, changeByCli())
      return printResult(json, { deleted: true, id: operand }, () => `deleted webhook ${operand}`)
    }
    case 'deliveries': {
      const webhook = await webhooks.require(operand!)
      const status = flagString(args, 'status') as DeliveryStatus | undefined
      if (status !== undefined && !['pending', 'delivered', 'failed'].includes(status))
        throw new UsageError('--status must be pending, delivered or failed')
      const found = await store.webhooks.listDeliveries({ webhookId: webhook.id, status }, 100)
      return printResult(json, found.map(deliveryJson), () =>
        found.length === 0
          ? 'no deliveries'
          : table([
              ['ID', 'EVENT', 'STATUS', 'ATTEMPTS', 'MADE', 'LAST ANSWER'],
              ...found.map((delivery) => [
                delivery.id,
                delivery.event,
                delivery.status,
                String(delivery.attempts),
                formatTime(delivery.createdAt),
                delivery.lastError ?? (delivery.lastStatus === null ? '-' : `HTTP ${delivery.lastStatus}`),
              ]),
            ]),
      )
    }
    default:
      throw new UsageError('usage: tollgate webhook create|list|delete|deliveries …')
  }
}
