import { Type } from '@sinclair/typebox'
import { parseUsd } from '../../core/money.ts'
import { refuse } from './shapes.ts'

/**
 * Prices of things that are not tokens (images, rerank's search units), USD each as the operator writes them, read
 * into exact nano-dollars. Kinds that bill them say so (core/model-kinds.ts); config/kind-checks.ts refuses them on
 * any other model.
 */
function usdEach(description: string) {
  const amount = Type.Union([Type.Number({ minimum: 0 }), Type.String({ pattern: '^\\s*\\d+(\\.\\d+)?\\s*$' })], {
    unit: 'USD each',
    errorMessage: 'must be a number ≥ 0',
    description,
  })
  return Type.Transform(amount)
    .Decode((value) => {
      try {
        return parseUsd(value)
      } catch (error) {
        return refuse((error as Error).message)
      }
    })
    .Encode((units: number) => units)
}

/** `size/quality` or `size`: `1024x1024/low`, `1024x1024`. */
const imagePriceKey = /^\d+x\d+(\/[a-z]+)?$/

/** Each key of `price.images` is a size, with or without its quality: anything else would never match a request. */
function checkImageKeys(prices: Record<string, number>): Record<string, number> {
  if (Object.keys(prices).length === 0) refuse('lists no price: every request would be refused')
  for (const key of Object.keys(prices)) {
    if (!imagePriceKey.test(key)) refuse(`"${key}" is not a size and quality like "1024x1024/low" (or a size alone, "1024x1024")`, key)
  }
  return prices
}

export const unitPriceFields = {
  images: Type.Optional(
    Type.Transform(
      Type.Record(Type.String(), usdEach('One image of this size and quality.'), {
        unit: '`size/quality` → USD per image',
        description:
          'Image models: USD per image, by `size/quality` (`"1024x1024/low": 0.011`) or by size alone (any ' +
          'quality). A request for a size or quality not listed is refused; its hold is `n` × the dearest price it may ' +
          'be answered at. Give this, or `input` and `output` to bill the tokens the upstream reports.',
        errorMessage: 'must map `size/quality` (like "1024x1024/low") to USD per image',
      }),
    )
      .Decode(checkImageKeys)
      .Encode((prices) => prices),
  ),
  search_unit: Type.Optional(
    usdEach(
      'Rerank models: USD per search unit (a query with up to 100 documents, as Cohere bills). Give this, or `input` ' +
        'to bill the tokens the upstream reports.',
    ),
  ),
}

/** The decoded unit prices, as core/pricing.ts `Price` carries them (absent: the kind does not bill that unit). */
export function unitPricesOf(fields: { images?: Record<string, number>; search_unit?: number }) {
  return { images: fields.images, searchUnit: fields.search_unit }
}
