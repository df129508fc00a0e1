import type { Config, ModelConfig } from '../config/types.ts'
import type { Provider, Target } from '../core/provider.ts'
import { GatewayError } from '../core/errors.ts'
import type { Operation, RelayCall } from './types.ts'
import { RoutePlanner } from './route-planner.ts'

// What the relay knows of the models a config serves (relay.ts): the catalog built once per config, and the two
// questions a request asks of a model before anything is held — what it may cost, and whether it serves the operation.

/**
 * The most the request can cost on any model it may end up on (a fallback may be dearer), by its operation's hold
 * rule: what its hold reserves.
 */
export function worstCaseOf(call: RelayCall, plan: readonly Target[]): number {
  let amount = 0
  let priced: ModelConfig | undefined
  for (const { model } of plan) {
    if (model === priced) continue // a model's routes are next to each other in the plan
    priced = model
    amount = Math.max(amount, call.operation.worstCaseOn(call.request, call.inputBound, model))
  }
  return amount
}

/** A request for an operation its model does not serve (an embedding model asked to chat, and the reverse). */
export function wrongKind(model: ModelConfig, operation: Operation): GatewayError {
  const article = /^[aeiou]/.test(model.kind) ? 'an' : 'a'
  return new GatewayError(
    'invalid_request',
    `The model '${model.id}' is ${article} ${model.kind} model (kind: ${model.kind}): it cannot serve ${operation.name} requests.`,
    {
      code: 'wrong_model_kind',
      param: 'model',
    },
  )
}

/** What a config says requests may be routed to, built once per config (start, and each reload). */
export interface Catalog {
  config: Config
  providers: Map<string, Provider>
  models: Map<string, ModelConfig>
  planner: RoutePlanner
}

export function catalogOf(config: Config, providers: Map<string, Provider>): Catalog {
  const models = new Map(config.models.map((model) => [model.id, model]))
  return { config, providers, models, planner: new RoutePlanner(models, providers) }
}
