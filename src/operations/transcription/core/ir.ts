import type { AudioDuration } from '../../../core/audio-duration/index.ts'
import type { OperationRequest } from '../../../core/operation.ts'
import type { Usage } from '../../../core/usage.ts'

/**
 * Transcription's internal format (IR): an audio file to be written out as text, in its own language (a
 * transcription) or in English (a translation). The file is kept aside on disk while the request runs (its upload is
 * never held in memory: protocols/openai/read-form.ts), so each attempt sends it again from there.
 */

/** The answer formats OpenAI's endpoints take; `diarized_json` is gpt-4o-transcribe-diarize's. */
export const transcriptFormats = ['json', 'text', 'srt', 'verbose_json', 'vtt', 'diarized_json'] as const
export type TranscriptFormat = (typeof transcriptFormats)[number]

/** An uploaded audio file, spooled to a file of its own (0600) that is removed when the request is done. */
export interface SpooledAudio {
  path: string
  /** The name the client gave it: upstreams tell the container from its extension. */
  filename: string
  contentType: string
  bytes: number
}

export interface TranscriptionRequest extends OperationRequest {
  /** The gateway model id the client asked for (not the upstream id). */
  readonly model: string
  /** `stream: true`: the transcript's text as SSE events, for models that stream (gpt-4o-transcribe). */
  stream: boolean
  task: 'transcription' | 'translation'
  audio: SpooledAudio
  /** The audio's length as its container's header gives it, or why it could not be read. */
  duration: Exclude<AudioDuration, { kind: 'need' }>
  format: TranscriptFormat
  /**
   * The form's other fields as the client sent them, in order (`language`, `prompt`, `temperature`,
   * `timestamp_granularities[]`, `include[]`, `chunking_strategy`…): an OpenAI-compatible upstream gets them all.
   */
  fields: [string, string][]
  /** Set when the plan is checked: the `max_audio_seconds` held for a file whose length cannot be read. */
  unmeasuredSeconds?: number
}

/** A whole answer: the upstream's body as it wrote it (JSON or text), and what it reported using. */
export interface TranscriptionAnswer {
  body: string
  /** Tokens, when the upstream reports them (gpt-4o-transcribe); absent for models billed by duration only. */
  usage?: Usage
  /** Seconds of audio, when the upstream reports them (whisper-1's `usage.seconds`, verbose_json's `duration`). */
  seconds?: number
}

/** The whole seconds a duration is billed for: rounded up, so a 0.2 s clip is one second. */
export function billedSeconds(seconds: number): number {
  return Math.max(1, Math.ceil(seconds))
}
