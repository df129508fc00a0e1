import { type TProperties, Type } from '@sinclair/typebox'
import { parseUsd } from '../../core/money.ts'
import type { Price } from '../../core/pricing.ts'
import { entry, readOnly, refuse } from './shapes.ts'
import { unitPriceFields, unitPricesOf } from './unit-prices.ts'

/**
 * A model's prices, USD per million tokens as the operator writes them, read into exact nano-dollars. A quoted
 * decimal ("0.123456789") is read digit for digit; a YAML number by its shortest decimal form (core/money.ts).
 */
function usdPerMillion(description: string, defaultText?: string, unit = 'USD per 1M tokens') {
  const amount = Type.Union([Type.Number({ minimum: 0 }), Type.String({ pattern: '^\\s*\\d+(\\.\\d+)?\\s*$' })], {
    unit,
    errorMessage: 'must be a number ≥ 0',
    description,
    defaultText,
  })
  return Type.Transform(amount)
    .Decode((value) => {
      try {
        return parseUsd(value)
      } catch (error) {
        return refuse((error as Error).message) // more than nine decimals, or too large to be exact
      }
    })
    .Encode(readOnly)
}

const amounts = {
  // Required of chat and embedding models (config/kind-checks.ts); speech and transcription may bill by tokens too.
  input: Type.Optional(
    usdPerMillion('Each uncached input token. Required for chat and embedding models.', '**required** (chat, embedding)'),
  ),
  // Required of a chat model, refused for an embedding model (config/cross-checks.ts: the kind decides).
  output: Type.Optional(
    usdPerMillion('Each output token (hidden reasoning tokens included). Chat models only, and required for them.', '**required** (chat)'),
  ),
  cached_input: Type.Optional(usdPerMillion("Each input token read from the upstream's prompt cache.", 'the `input` price')),
  cache_write: Type.Optional(usdPerMillion("Each input token written to the upstream's prompt cache.", 'the `input` price')),
  ...unitPriceFields,
  characters: Type.Optional(
    usdPerMillion(
      'Each input character of a speech request (`kind: speech`, required for it).',
      '**required** (speech)',
      'USD per 1M characters',
    ),
  ),
  audio_minute: Type.Optional(
    usdPerMillion(
      'Each minute of audio transcribed or translated, counted in whole seconds (`kind: transcription`, required for it).',
      '**required** (transcription)',
      'USD per minute',
    ),
  ),
} satisfies TProperties

type PriceFields = {
  input?: number
  output?: number
  cached_input?: number
  cache_write?: number
  images?: Record<string, number>
  search_unit?: number
  characters?: number
  audio_minute?: number
}

/** A price field a model's kind does not bill (an embedding model's output) costs nothing. */
function toPrice(fields: PriceFields): Price {
  const input = fields.input ?? 0
  const price: Price = {
    input,
    output: fields.output ?? 0,
    cachedInput: fields.cached_input ?? input,
    cacheWrite: fields.cache_write ?? input,
    ...unitPricesOf(fields),
  }
  if (fields.characters !== undefined) price.characters = fields.characters
  if (fields.audio_minute !== undefined) price.audioMinute = fields.audio_minute
  return price
}

const batchPriceSchema = Type.Transform(
  entry(amounts, {
    description: 'What batch items pay instead (the same prices); absent, batch items pay the live price.',
  }),
)
  .Decode(toPrice)
  .Encode(readOnly)

/** `price:` decodes to the live price and, when given, the batch price. */
export const priceSchema = Type.Transform(
  entry(
    { ...amounts, batch: Type.Optional(batchPriceSchema) },
    {
      description: 'What a request costs, USD per 1M tokens, exact to nine decimals; a request is billed on the sum, ' + 'rounded up once.',
    },
  ),
)
  .Decode((fields) => ({ live: toPrice(fields), batch: fields.batch }))
  .Encode(readOnly)
