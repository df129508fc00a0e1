import type { ProviderConfig } from '../config/types.ts'
import type { GatewayError } from '../core/errors.ts'
import type { ChatRequest, ChatResponse } from '../core/ir.ts'
import type { StreamDecoder, Target } from '../core/provider.ts'

/** What an HTTP-speaking provider folder supplies; providers/http.ts turns it into a Provider. */
export interface HttpCodec {
  nativeProtocol?: string
  /** The upstream URL, headers and JSON body for an IR request. */
  encodeRequest(request: ChatRequest, target: Target): { path: string; body: unknown; headers?: Record<string, string> }
  authHeaders(provider: ProviderConfig): Record<string, string>
  decodeResponse(body: unknown): ChatResponse
  createStreamDecoder(): StreamDecoder
  decodeError(status: number, body: string, headers: Headers): GatewayError
}
