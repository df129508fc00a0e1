import { Elysia, t } from 'elysia'
import type { ModelConfig } from '../../config/types.ts'
import { formatUsd } from '../../core/money.ts'
import type { Price } from '../../core/pricing.ts'
import { keyStatus, listKeys } from '../../domain/keys.ts'
import type { Services } from '../../edge/services.ts'
import * as schema from './schemas.ts'
import { ownAccountId } from './scope.ts'
import { signedIn } from './signed-in.ts'

const tags = ['Models']

function priceJson(price: Price) {
  return {
    input_usd: formatUsd(price.input),
    output_usd: formatUsd(price.output),
    cached_input_usd: formatUsd(price.cachedInput),
    cache_write_usd: formatUsd(price.cacheWrite),
    ...unitPricesJson(price),
  }
}

/** What a model bills beyond tokens, when it does: each image by size/quality, each search unit. */
function unitPricesJson(price: Price) {
  const units: { images_usd?: Record<string, string>; search_unit_usd?: string } = {}
  if (price.images) units.images_usd = Object.fromEntries(Object.entries(price.images).map(([key, amount]) => [key, formatUsd(amount)]))
  if (price.searchUnit !== undefined) units.search_unit_usd = formatUsd(price.searchUnit)
  return units
}

function modelJson(model: ModelConfig) {
  return {
    id: model.id,
    kind: model.kind,
    owned_by: model.ownedBy,
    price: priceJson(model.price),
    batch_price: model.batchPrice ? priceJson(model.batchPrice) : null,
    context_window: model.contextWindow ?? null,
    max_output_tokens: model.maxOutputTokens,
    reasoning: model.reasoning,
  }
}

/** The model IDs an account's usable keys may call: all of them as soon as one key is unrestricted. */
async function usableModels(services: Services, accountId: number): Promise<Set<string> | 'all'> {
  const usable = new Set<string>()
  for (const key of await listKeys(services.store.keys, accountId)) {
    if (keyStatus(key) !== 'active') continue
    if (key.models === null) return 'all'
    for (const model of key.models) usable.add(model)
  }
  return usable
}

/** What can be called and at what price; for admins also how each upstream route is doing. */
export function modelRoutes(services: Services) {
  const models = new Elysia({ name: 'console-model-list' }).use(signedIn(services)).get(
    '/console/api/models',
    async ({ viewer }) => {
      const configured = services.config.models
      const accountId = ownAccountId(viewer)
      if (accountId === undefined) return configured.map(modelJson)
      const usable = await usableModels(services, accountId)
      return configured.filter((model) => usable === 'all' || usable.has(model.id)).map(modelJson)
    },
    {
      permission: 'models:read',
      response: { 200: t.Array(schema.model), ...schema.errorResponses },
      detail: {
        tags,
        summary: 'Models and their prices',
        description:
          "Prices per million tokens as exact decimal strings. An account's login sees the models its account's active keys may use; an admin every configured model.",
      },
    },
  )
  const routes = new Elysia({ name: 'console-route-health' }).use(signedIn(services)).get(
    '/console/api/routes',
    () => {
      return services.relay.routeHealth().map((route) => ({
        route: route.route,
        state: route.state,
        requests: route.requests,
        failures: route.failures,
        trips: route.trips,
        window_s: services.config.routing.windowS,
        open_until: route.openUntil === undefined ? null : new Date(route.openUntil).toISOString(),
        last_failure: route.lastFailure ?? null,
      }))
    },
    {
      permission: 'routes:read',
      response: { 200: t.Array(schema.route), ...schema.errorResponses },
      detail: {
        tags,
        summary: "Route health: each upstream route's circuit breaker",
        description: "The whole gateway's upstreams, so admins only. With Redis, trips are shared by every instance.",
      },
    },
  )
  return new Elysia({ name: 'console-models' }).use(models).use(routes)
}
