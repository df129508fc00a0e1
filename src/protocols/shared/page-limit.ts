import { GatewayError } from '../../core/errors.ts'

/** A list's `limit` query parameter: an integer from 1 to `max`, `fallback` when absent. */
export function pageLimit(value: string | null, fallback: number, max: number, name = 'limit'): number {
  if (value === null || value === '') return fallback
  const limit = Number(value)
  if (!Number.isInteger(limit) || limit < 1 || limit > max)
    throw new GatewayError('invalid_request', `'${name}' must be an integer from 1 to ${max}.`, { param: name })
  return limit
}
