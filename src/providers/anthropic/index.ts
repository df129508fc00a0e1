import type { ProviderConfig } from '../../config/types.ts'
import { createHttpProvider } from '../http.ts'
import type { Provider } from '../../core/provider.ts'
import { decodeAnthropicError } from './decode-error.ts'
import { decodeAnthropicResponse } from '../../operations/chat/providers/anthropic/decode-response.ts'
import { createAnthropicStreamDecoder } from '../../operations/chat/providers/anthropic/decode-stream.ts'
import { encodeAnthropicRequest } from '../../operations/chat/providers/anthropic/encode-request.ts'

/** The only API version there is; Anthropic adds features as `anthropic-beta` flags instead. */
export const anthropicVersion = '2023-06-01'

/** Anthropic's Messages API (or any server that speaks it). */
export function createAnthropicProvider(config: ProviderConfig): Provider {
  return createHttpProvider(config, {
    nativeProtocol: 'anthropic',
    encodeRequest: encodeAnthropicRequest,
    authHeaders: (provider): Record<string, string> => ({
      'anthropic-version': anthropicVersion,
      ...(provider.apiKey && { 'x-api-key': provider.apiKey }),
    }),
    decodeResponse: decodeAnthropicResponse,
    createStreamDecoder: createAnthropicStreamDecoder,
    decodeError: decodeAnthropicError,
  })
}
