import { type Provider, type Target, upstreamOf } from '../../../core/provider.ts'
import type { ImagesAnswer, ImagesRequest } from './ir.ts'

/** What an upstream does for images: one side of a Provider (core/provider.ts), made per kind of upstream. */
export interface ImagesUpstream {
  /** The request's images (a generation, or an edit when `request.edit` is set); a field this kind cannot carry is a 400. */
  create(request: ImagesRequest, target: Target, attempt: AbortController, traceparent?: string | null): Promise<ImagesAnswer>
}

/** The operation's name, as the relay, the providers' registry and usage rows know it. */
export const imagesOperationName = 'images'

/** A provider's images side; a kind of upstream without one is refused by the config at start. */
export function imagesUpstreamOf(provider: Provider): ImagesUpstream {
  return upstreamOf<ImagesUpstream>(provider, imagesOperationName)
}
