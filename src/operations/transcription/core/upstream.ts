import { type BodyChunks, type Provider, type Target, upstreamOf } from '../../../core/provider.ts'
import type { TranscriptionAnswer, TranscriptionRequest } from './ir.ts'

/** A transcription's answer from an upstream: whole, or (for `stream: true`) its SSE bytes as they come. */
export type TranscriptionReply = { kind: 'whole'; answer: TranscriptionAnswer } | { kind: 'stream'; chunks: BodyChunks }

/** What an upstream does for transcription: one side of a Provider (core/provider.ts), made per kind of upstream. */
export interface TranscriptionUpstream {
  /** Send the file and its fields; a field this kind of upstream cannot carry is a 400 before anything is sent. */
  transcribe(
    request: TranscriptionRequest,
    target: Target,
    attempt: AbortController,
    traceparent?: string | null,
  ): Promise<TranscriptionReply>
}

/** The operation's name, as the relay, the providers' registry and usage rows know it. */
export const transcriptionOperationName = 'transcription'

/** A provider's transcription side; a kind of upstream without one is refused by the config at start. */
export function transcriptionUpstreamOf(provider: Provider): TranscriptionUpstream {
  return upstreamOf<TranscriptionUpstream>(provider, transcriptionOperationName)
}
