import { Type } from '@sinclair/typebox'
import { renamedSection } from './shapes.ts'

/** Alerts sent to accounts' webhooks (README "Alerts (webhooks)"). */
export const webhooksSchema = renamedSection(
  {
    allow_private_addresses: Type.Boolean({
      default: false,
      description:
        'Allow webhook URLs on loopback, private, link-local and other internal addresses (a receiver on this host ' +
        'or LAN). Off, such a URL is refused when it is set and again at each delivery, whatever its name resolves to.',
    }),
    timeout_ms: Type.Integer({
      minimum: 100,
      maximum: 60_000,
      default: 10_000,
      description: "How long one delivery attempt waits for the receiver's answer.",
    }),
    poll_ms: Type.Integer({
      minimum: 10,
      default: 1_000,
      description: 'How often each instance looks for deliveries that are due (new alerts are sent at once).',
    }),
    first_retry_ms: Type.Integer({
      minimum: 10,
      default: 10_000,
      description:
        'The wait before the first retry of a failed delivery; each retry waits twice as long (at most an hour, with ' +
        'jitter) until a day has passed since the first attempt, then the delivery is `failed`.',
    }),
    expiry_check_s: Type.Integer({
      minimum: 1,
      default: 600,
      description: 'How often keys about to expire are looked for (`key.expiring` alerts).',
    }),
  },
  { description: 'Alerts: signed webhook deliveries to accounts (balance low, budget thresholds, keys about to expire).' },
)
