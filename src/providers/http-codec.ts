import type { ProviderConfig } from '../config/types.ts'
import type { GatewayError } from '../core/errors.ts'
import type { ChatRequest, ChatResponse } from '../operations/chat/core/ir.ts'
import type { StreamDecoder, Target } from '../core/provider.ts'

export interface StreamDecoderOptions {
  /** The provider's own key: an in-stream error event that quotes it (whole or in pieces) has it redacted. */
  apiKey?: string
}

/** What an HTTP-speaking provider folder supplies; providers/http.ts turns it into a Provider. */
export interface HttpCodec {
  nativeProtocol?: string
  /** The upstream URL, headers and JSON body for an IR request. */
  encodeRequest(request: ChatRequest, target: Target): { path: string; body: unknown; headers?: Record<string, string> }
  authHeaders(provider: ProviderConfig): Record<string, string>
  decodeResponse(body: unknown): ChatResponse
  createStreamDecoder(options?: StreamDecoderOptions): StreamDecoder
  decodeError(status: number, body: string, headers: Headers): GatewayError
}
