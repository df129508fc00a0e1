import { Type } from '@sinclair/typebox'
import { defaultModelKind, type ModelKind, modelKinds } from '../../core/model-kinds.ts'
import { paidFeatures } from '../../core/paid-features.ts'
import { priceSchema } from './price.ts'
import { entry, oneOf, readOnly, text } from './shapes.ts'

/** The defaults of chat's own settings, which models of other kinds do not take. */
const chatDefaults = { maxOutputTokens: 4096 }

/** What a route weighs and where it stands when the model names its provider directly (no `routes:`). */
const routeDefaults = { weight: 1, priority: 0 }

const upstreamModel = (description: string) => Type.Optional(text({ defaultText: "the model's id", description }))

const routeSchema = entry({
  provider: text({ description: 'The provider this route calls (a `providers:` name).' }),
  upstream_model: upstreamModel('The model name this provider knows the model by.'),
  weight: Type.Number({
    minimum: 0,
    default: routeDefaults.weight,
    description: 'Share of requests among the routes of the same priority (weighted random order).',
  }),
  priority: Type.Integer({
    minimum: 0,
    default: routeDefaults.priority,
    description: 'Lower is tried first; a higher priority is tried when every route before it failed or is cooling down.',
  }),
})

export const modelSchema = Type.Transform(
  entry({
    id: text({ description: 'What clients send as `model`; unique.' }),
    kind: oneOf(Object.keys(modelKinds) as ModelKind[], {
      default: defaultModelKind,
      description:
        'What the model serves: `chat` (chat, responses, messages, generateContent), `embedding` ' +
        "(`/v1/embeddings`, Gemini's embedContent), `image` (`/v1/images/generations`, `/v1/images/edits`), `rerank` (`/v1/rerank`), " +
        '`speech` (`/v1/audio/speech`) or `transcription` (`/v1/audio/transcriptions` and `/translations`); ' +
        "a request of another kind is a 400. An embedding model's price " +
        'has `input` only, and it takes no `max_output_tokens`, `reasoning` or `allow`.',
    }),
    provider: Type.Optional(text({ description: 'The one provider serving this model (a `providers:` name); or give `routes`.' })),
    upstream_model: upstreamModel('The model name the provider knows it by (with `provider`).'),
    routes: Type.Optional(
      Type.Array(routeSchema, {
        minItems: 1,
        errorMessage: 'must list at least one route',
        description: 'Several providers serving this model, instead of `provider`: tried by priority, then weight.',
      }),
    ),
    fallbacks: Type.Array(text(), {
      default: [],
      description: 'Other models (by id) tried in this order when every route of this one failed; billed at their own price.',
    }),
    price: priceSchema,
    // Chat's own settings (operations/chat/core/model-kind.ts) have no schema default, so that config/cross-checks.ts
    // can tell one given to a model of another kind; their defaults are filled in below.
    max_output_tokens: Type.Optional(
      Type.Integer({
        minimum: 1,
        defaultText: `\`${chatDefaults.maxOutputTokens}\``,
        description: "The output cap a request's hold is sized for; a client asking for more is clamped to it (chat models).",
      }),
    ),
    context_window: Type.Optional(
      Type.Integer({
        minimum: 1,
        description: 'Bounds the input side of the hold for content given by URL or file id; without it such requests are refused.',
      }),
    ),
    max_audio_seconds: Type.Optional(
      Type.Integer({
        minimum: 1,
        description:
          'The longest audio a request may send (transcription models): a file whose duration cannot be read from ' +
          'its header is held against it instead of refused.',
      }),
    ),
    owned_by: text({ default: 'tollgate', description: 'The `owned_by` the model list shows.' }),
    reasoning: Type.Optional(
      Type.Boolean({
        defaultText: '`false`',
        description:
          '`true` for a model with hidden reasoning tokens: a client leaving does not stop its answer, which is ' +
          'read to the end and billed exactly (chat models).',
      }),
    ),
    allow: Type.Optional(
      Type.Array(oneOf(paidFeatures), {
        defaultText: '`[]`',
        description:
          'Paid upstream features this model\'s requests may use, billed at the token price only (see "Money"); ' +
          'any other is refused with a 400 (chat models).',
      }),
    ),
    max_images: Type.Optional(
      Type.Integer({
        minimum: 1,
        defaultText: '`10`',
        description: 'The most images one request may ask for (`n`); more is a 400 (image models).',
      }),
    ),
  }),
)
  .Decode((model) => {
    // A model with neither provider nor routes is refused by config/cross-checks.ts, which runs right after decoding.
    const routes = model.routes ?? [{ provider: model.provider ?? '', upstream_model: model.upstream_model, ...routeDefaults }]
    return {
      id: model.id,
      kind: model.kind,
      routes: routes.map((route) => ({
        provider: route.provider,
        upstreamModel: route.upstream_model ?? model.id,
        weight: route.weight,
        priority: route.priority,
      })),
      fallbacks: model.fallbacks,
      price: model.price.live,
      batchPrice: model.price.batch,
      maxOutputTokens: model.max_output_tokens ?? chatDefaults.maxOutputTokens,
      contextWindow: model.context_window,
      maxAudioSeconds: model.max_audio_seconds,
      ownedBy: model.owned_by,
      reasoning: model.reasoning ?? false,
      allow: model.allow ?? [],
      maxImages: model.max_images ?? 10,
    }
  })
  .Encode(readOnly)
