import { Type } from '@sinclair/typebox'
import { authSchema } from './auth.ts'
import { ledgerSchema } from './ledger.ts'
import { limitsSchema } from './limits.ts'
import { modelSchema } from './models.ts'
import { providerSchema } from './providers.ts'
import { routingSchema } from './routing.ts'
import { adminSchema, databaseSchema, listenSchema, logSchema, redisSchema, shutdownSchema, trustedProxiesSchema } from './server.ts'
import { readOnly } from './shapes.ts'
import { retentionSchema, tasksSchema } from './tasks.ts'
import { telemetrySchema } from './telemetry.ts'
import { webhooksSchema } from './webhooks.ts'

/**
 * The whole of tollgate.yaml: each section's schema says what it accepts (types, bounds, defaults, one description
 * per setting for the README's reference) and how it is read into the form the code uses (camelCase names, prices in
 * nano-dollars…). The order here is the README's order.
 */
export const configSchema = Type.Transform(
  Type.Object(
    {
      listen: listenSchema,
      database: databaseSchema,
      redis: Type.Optional(redisSchema),
      trusted_proxies: trustedProxiesSchema,
      providers: Type.Array(providerSchema, {
        minItems: 1,
        default: [],
        errorMessage: 'at least one provider is required',
        description: 'The upstreams the gateway calls; at least one.',
      }),
      models: Type.Array(modelSchema, { default: [], description: 'What clients may ask for, what it costs, and who serves it.' }),
      routing: routingSchema,
      log: logSchema,
      shutdown: shutdownSchema,
      limits: limitsSchema,
      tasks: tasksSchema,
      admin: adminSchema,
      retention: retentionSchema,
      ledger: ledgerSchema,
      webhooks: webhooksSchema,
      telemetry: Type.Optional(telemetrySchema),
      auth: authSchema,
    },
    { additionalProperties: false },
  ),
)
  .Decode((config) => {
    // How much of an answer is read at most is a gateway-wide limit, but each provider's reader applies it.
    const { upstreamEventBytes, upstreamBodyBytes, upstreamErrorBytes } = config.limits
    const caps = { eventBytes: upstreamEventBytes, bodyBytes: upstreamBodyBytes, errorBytes: upstreamErrorBytes }
    return {
      listen: config.listen,
      database: config.database,
      redis: config.redis,
      trustedProxies: config.trusted_proxies,
      providers: config.providers.map((provider) => ({ ...provider, caps })),
      models: config.models,
      routing: config.routing,
      log: config.log,
      shutdown: config.shutdown,
      limits: config.limits,
      tasks: config.tasks,
      admin: config.admin,
      retention: config.retention,
      ledger: config.ledger,
      webhooks: config.webhooks,
      telemetry: config.telemetry,
      auth: config.auth,
    }
  })
  .Encode(readOnly)
