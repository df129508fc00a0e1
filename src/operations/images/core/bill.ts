import { ceilPerMillion, type Price } from '../../../core/pricing.ts'
import type { ModelConfig } from '../../../config/types.ts'
import { emptyUsage, type Usage } from '../../../core/usage.ts'
import { dearestImagePrice } from './image-prices.ts'
import type { ImagesAnswer, ImagesRequest } from './ir.ts'

/** The prompt's tokens without the tokenizer (a token per four characters): a key's tpm at admission, a left client's bill. */
export function roughPromptTokens(request: ImagesRequest): number {
  return Math.ceil(request.prompt.length / 4)
}

/** The request's own `size/quality` (`auto` for what it left to the model). */
export function requestVariant(request: ImagesRequest): string {
  return `${request.size ?? 'auto'}/${request.quality ?? 'auto'}`
}

/**
 * The usage an answer is billed at: its images (`units`) at the size and quality the upstream says it made (else
 * those asked for), and the tokens it reports. A model priced per token whose upstream reported none is billed
 * the most its images may use (what was held), marked estimated.
 */
export function usageOfAnswer(answer: ImagesAnswer, request: ImagesRequest, model: ModelConfig): Usage {
  const units = answer.images.length
  const variant = `${answer.size ?? request.size ?? 'auto'}/${answer.quality ?? request.quality ?? 'auto'}`
  const reported = answer.usage ?? emptyUsage()
  if (model.price.images || reported.inputTokens + reported.outputTokens > 0) return { ...reported, units, variant }
  return {
    inputTokens: roughPromptTokens(request),
    cachedInputTokens: 0,
    cacheWriteTokens: 0,
    outputTokens: units * model.maxOutputTokens,
    reasoningTokens: 0,
    units,
    variant,
    estimated: true,
  }
}

/**
 * What one image of `variant` costs: its own price when listed (`size/quality`, then `size`), else the dearest
 * price of what the request matched — the price it was held at. A price list with no match at all (refused before
 * the hold, so never) bills its dearest price rather than failing a settled answer.
 */
export function pricePerImage(prices: Readonly<Record<string, number>>, variant: string): number {
  const [size, quality] = variant.split('/')
  const exact = prices[variant] ?? prices[size!]
  if (exact !== undefined) return exact
  try {
    return dearestImagePrice(prices, '', size, quality)
  } catch {
    return Math.max(0, ...Object.values(prices))
  }
}

/** Images at their price each, or the tokens at the token prices: integers only, rounded up once. */
export function imagesCost(usage: Usage, price: Price): number {
  if (price.images) return (usage.units ?? 0) * pricePerImage(price.images, usage.variant ?? 'auto/auto')
  return ceilPerMillion([usage.inputTokens, price.input, usage.outputTokens, price.output])
}
