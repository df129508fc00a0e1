import { type Provider, type Target, upstreamOf } from '../../../core/provider.ts'
import type { RerankAnswer, RerankRequest } from './ir.ts'

/** What an upstream does for rerank: one side of a Provider (core/provider.ts), made per kind of upstream. */
export interface RerankUpstream {
  /** The documents' scores, best first; a field this kind of upstream cannot carry is a 400 before anything is sent. */
  rerank(request: RerankRequest, target: Target, attempt: AbortController, traceparent?: string | null): Promise<RerankAnswer>
}

/** The operation's name, as the relay, the providers' registry and usage rows know it. */
export const rerankOperationName = 'rerank'

/** A provider's rerank side; a kind of upstream without one is refused by the config at start. */
export function rerankUpstreamOf(provider: Provider): RerankUpstream {
  return upstreamOf<RerankUpstream>(provider, rerankOperationName)
}
