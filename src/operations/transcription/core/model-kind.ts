import type { ModelKindRules } from '../../../core/model-kind.ts'
import { transcriptionOperationName } from './upstream.ts'

/**
 * A speech-to-text model (`kind: transcription`, for transcriptions and translations): billed per minute of audio in
 * whole seconds (`audio_minute`), plus input and output tokens where the upstream reports them (`input`, `output`:
 * gpt-4o-transcribe does). `max_audio_seconds` holds a file whose length cannot be read; `max_output_tokens` bounds
 * the hold for output tokens.
 */
export const transcriptionModels: ModelKindRules = {
  operation: transcriptionOperationName,
  price: { required: ['audio_minute'], optional: ['input', 'output'] },
  settings: ['max_audio_seconds', 'max_output_tokens'],
}
