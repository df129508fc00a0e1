import { invalidRequest } from '../../../../core/errors.ts'
import { type TranscriptFormat, transcriptFormats, type TranscriptionRequest } from '../../core/ir.ts'
import type { AudioForm } from './read-form.ts'

const granularities = ['word', 'segment']

/** The last value of a field (a form may repeat one; OpenAI reads the last). */
function fieldOf(fields: [string, string][], name: string): string | undefined {
  return fields.findLast(([field]) => field === name)?.[1]
}

/**
 * A transcription or translation form → the IR, refusing what the API itself refuses with a 400. Every field but
 * `model` is kept to be forwarded as the client sent it (`model` is replaced by the upstream's id).
 */
export function decodeOpenAiTranscriptionRequest(form: AudioForm, task: TranscriptionRequest['task']): TranscriptionRequest {
  const model = fieldOf(form.fields, 'model')
  if (!model) throw invalidRequest("Missing required parameter: 'model'.", 'model')
  const format = fieldOf(form.fields, 'response_format') ?? 'json'
  if (!transcriptFormats.includes(format as TranscriptFormat))
    throw invalidRequest(`Invalid value for 'response_format': expected one of ${transcriptFormats.join(', ')}.`, 'response_format')
  const stream = fieldOf(form.fields, 'stream') ?? 'false'
  if (stream !== 'true' && stream !== 'false') throw invalidRequest("Invalid value for 'stream': expected true or false.", 'stream')
  if (stream === 'true' && task === 'translation')
    throw invalidRequest("Invalid value for 'stream': translations are not streamed.", 'stream')
  for (const [name, value] of form.fields) {
    if (name !== 'timestamp_granularities[]' && name !== 'timestamp_granularities') continue
    if (!granularities.includes(value))
      throw invalidRequest("Invalid value for 'timestamp_granularities': expected 'word' or 'segment'.", 'timestamp_granularities')
    if (format !== 'verbose_json')
      throw invalidRequest("'timestamp_granularities' needs response_format 'verbose_json'.", 'timestamp_granularities')
  }
  return {
    model,
    stream: stream === 'true',
    task,
    audio: form.audio,
    duration: form.duration,
    format: format as TranscriptFormat,
    fields: form.fields.filter(([name]) => name !== 'model'),
  }
}
