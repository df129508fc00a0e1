import { type Passthrough, type Provider, type Target, upstreamOf } from '../../../core/provider.ts'
import type { EmbeddingsAnswer, EmbeddingsRequest } from './ir.ts'

/** What an upstream does for embeddings: one side of a Provider (core/provider.ts), made per kind of upstream. */
export interface EmbeddingsUpstream {
  /** The most inputs one call may carry (`embedding_inputs_per_call`, else the kind's own limit): larger requests are split. */
  readonly inputsPerCall: number
  /** One call's vectors, in the inputs' order; a field this kind of upstream cannot carry is a 400 before anything is sent. */
  embed(request: EmbeddingsRequest, target: Target, attempt: AbortController, traceparent?: string | null): Promise<EmbeddingsAnswer>
  /** Present when the upstream speaks an embeddings client protocol natively and passthrough is not turned off. */
  readonly passthrough?: Passthrough<EmbeddingsAnswer>
}

/** The operation's name, as the relay, the providers' registry and usage rows know it. */
export const embeddingsOperationName = 'embeddings'

/** A provider's embeddings side; a kind of upstream without one is refused by the config at start. */
export function embeddingsUpstreamOf(provider: Provider): EmbeddingsUpstream {
  return upstreamOf<EmbeddingsUpstream>(provider, embeddingsOperationName)
}
