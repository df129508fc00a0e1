import { type Passthrough, type Provider, type Target, upstreamOf } from '../../../core/provider.ts'
import type { ChatRequest, ChatResponse, StreamEvent } from './ir.ts'

/** What an upstream does for chat: one side of a Provider (core/provider.ts), made per kind of upstream. */
export interface ChatUpstream {
  /** A whole answer (see Provider for `attempt` and `traceparent`). */
  complete(request: ChatRequest, target: Target, attempt: AbortController, traceparent?: string | null): Promise<ChatResponse>
  /** Resolves once the upstream has accepted the request (status and headers in), before any event is read. */
  stream(request: ChatRequest, target: Target, attempt: AbortController, traceparent?: string | null): Promise<AsyncIterable<StreamEvent>>
  /** Present when the upstream speaks a chat client protocol natively and passthrough is not turned off in the config. */
  readonly passthrough?: Passthrough<ChatResponse, StreamEvent>
}

/** The operation's name, as the relay, the providers' registry and usage rows know it. */
export const chatOperationName = 'chat'

/** A provider's chat side (every kind of upstream has one). */
export function chatUpstreamOf(provider: Provider): ChatUpstream {
  return upstreamOf<ChatUpstream>(provider, chatOperationName)
}
