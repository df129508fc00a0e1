import { type BodyChunks, type Provider, type Target, upstreamOf } from '../../../core/provider.ts'
import type { SpeechRequest } from './ir.ts'

/** What an upstream does for speech: one side of a Provider (core/provider.ts), made per kind of upstream. */
export interface SpeechUpstream {
  /**
   * Resolves once the upstream accepted the request, with its audio's bytes as they come (read under the provider's
   * timers); a field this kind of upstream cannot carry is a 400 before anything is sent.
   */
  speak(request: SpeechRequest, target: Target, attempt: AbortController, traceparent?: string | null): Promise<BodyChunks>
}

/** The operation's name, as the relay, the providers' registry and usage rows know it. */
export const speechOperationName = 'speech'

/** A provider's speech side; a kind of upstream without one is refused by the config at start. */
export function speechUpstreamOf(provider: Provider): SpeechUpstream {
  return upstreamOf<SpeechUpstream>(provider, speechOperationName)
}
