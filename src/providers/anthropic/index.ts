import type { HttpVendor } from '../http-codec.ts'
import { decodeAnthropicError } from './decode-error.ts'

/** The only API version there is; Anthropic adds features as `anthropic-beta` flags instead. */
const anthropicVersion = '2023-06-01'

/** Anthropic's API (or any server that speaks it). */
export const anthropicVendor: HttpVendor = {
  authHeaders: (provider): Record<string, string> => ({
    'anthropic-version': anthropicVersion,
    ...(provider.apiKey && { 'x-api-key': provider.apiKey }),
  }),
  decodeError: decodeAnthropicError,
}
