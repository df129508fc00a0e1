import { Type } from '@sinclair/typebox'
import { paidFeatures } from '../../core/paid-features.ts'
import { priceSchema } from './price.ts'
import { entry, oneOf, readOnly, text } from './shapes.ts'

/** What a route weighs and where it stands when the model names its provider directly (no `routes:`). */
const routeDefaults = { weight: 1, priority: 0 }

const upstreamModel = (description: string) => Type.Optional(text({ defaultText: 'the model\'s id', description }))

const routeSchema = entry({
  provider: text({ description: 'The provider this route calls (a `providers:` name).' }),
  upstream_model: upstreamModel('The model name this provider knows the model by.'),
  weight: Type.Number({
    minimum: 0, default: routeDefaults.weight,
    description: 'Share of requests among the routes of the same priority (weighted random order).',
  }),
  priority: Type.Integer({
    minimum: 0, default: routeDefaults.priority,
    description: 'Lower is tried first; a higher priority is tried when every route before it failed or is cooling down.',
  }),
})

export const modelSchema = Type.Transform(entry({
  id: text({ description: 'What clients send as `model`; unique.' }),
  provider: Type.Optional(text({ description: 'The one provider serving this model (a `providers:` name); or give `routes`.' })),
  upstream_model: upstreamModel('The model name the provider knows it by (with `provider`).'),
  routes: Type.Optional(Type.Array(routeSchema, {
    minItems: 1, errorMessage: 'must list at least one route',
    description: 'Several providers serving this model, instead of `provider`: tried by priority, then weight.',
  })),
  fallbacks: Type.Array(text(), {
    default: [],
    description: 'Other models (by id) tried in this order when every route of this one failed; billed at their own price.',
  }),
  price: priceSchema,
  max_output_tokens: Type.Integer({
    minimum: 1, default: 4096,
    description: 'The output cap a request\'s hold is sized for; a client asking for more is clamped to it.',
  }),
  context_window: Type.Optional(Type.Integer({
    minimum: 1,
    description: 'Bounds the input side of the hold for content given by URL or file id; without it such requests are refused.',
  })),
  owned_by: text({ default: 'tollgate', description: 'The `owned_by` the model list shows.' }),
  reasoning: Type.Boolean({
    default: false,
    description: '`true` for a model with hidden reasoning tokens: a client leaving does not stop its answer, which is '
      + 'read to the end and billed exactly.',
  }),
  allow: Type.Array(oneOf(paidFeatures), {
    default: [],
    description: 'Paid upstream features this model\'s requests may use, billed at the token price only (see "Money"); '
      + 'any other is refused with a 400.',
  }),
}))
  .Decode((model) => {
    // A model with neither provider nor routes is refused by config/cross-checks.ts, which runs right after decoding.
    const routes = model.routes ?? [{ provider: model.provider ?? '', upstream_model: model.upstream_model, ...routeDefaults }]
    return {
      id: model.id,
      routes: routes.map((route) => ({
        provider: route.provider, upstreamModel: route.upstream_model ?? model.id, weight: route.weight, priority: route.priority,
      })),
      fallbacks: model.fallbacks,
      price: model.price.live,
      batchPrice: model.price.batch,
      maxOutputTokens: model.max_output_tokens,
      contextWindow: model.context_window,
      ownedBy: model.owned_by,
      reasoning: model.reasoning,
      allow: model.allow,
    }
  })
  .Encode(readOnly)
