import { invalidRequest } from '../../../core/errors.ts'

/**
 * Per-image prices, keyed `size/quality` or `size` (any quality). A request's size or quality left to the model
 * (absent or `auto`) matches every key; what it may be billed at is the dearest price it matches, until the
 * upstream says what it made.
 */

const open = (value: string | undefined) => value === undefined || value === 'auto'

function matches(key: string, size: string | undefined, quality: string | undefined): boolean {
  const [keySize, keyQuality] = key.split('/')
  if (!open(size) && keySize !== size) return false
  return keyQuality === undefined || open(quality) || keyQuality === quality
}

/** The dearest price a request of this size and quality may be answered at; a 400 naming them when none is listed. */
export function dearestImagePrice(
  prices: Readonly<Record<string, number>>,
  model: string,
  size: string | undefined,
  quality: string | undefined,
): number {
  let dearest: number | undefined
  for (const [key, price] of Object.entries(prices)) {
    if (matches(key, size, quality) && (dearest === undefined || price > dearest)) dearest = price
  }
  if (dearest !== undefined) return dearest
  const asked = [size && `size ${size}`, quality && `quality ${quality}`].filter(Boolean).join(' and ')
  throw invalidRequest(
    `The model '${model}' has no price for ${asked}: it is priced for ${Object.keys(prices).join(', ')}.`,
    size !== undefined && !Object.keys(prices).some((key) => matches(key, size, undefined)) ? 'size' : 'quality',
  )
}
