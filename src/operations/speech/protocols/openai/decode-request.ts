import { invalidRequest } from '../../../../core/errors.ts'
import { isObject, type Json, optionalNumber, optionalString, requireString } from '../../../../protocols/shared/validate.ts'
import { type AudioFormat, audioFormats, countCharacters, type SpeechRequest } from '../../core/ir.ts'

/** OpenAI's own limit on the text of one request. */
const maxInputCharacters = 4096

function decodeVoice(value: unknown): string | { id: string } {
  if (value === undefined) throw invalidRequest("Missing required parameter: 'voice'.", 'voice')
  if (typeof value === 'string' && value !== '') return value
  if (isObject(value) && typeof value.id === 'string' && value.id !== '') return { id: value.id }
  throw invalidRequest('Invalid value for \'voice\': expected a voice\'s name or { "id": "voice_…" }.', 'voice')
}

/** The fields the IR reads; any other is carried as the client sent it (`extra`). */
const known = new Set(['model', 'input', 'voice', 'response_format', 'speed', 'instructions', 'stream_format'])

/** A `/v1/audio/speech` body → the IR, rejecting what the API itself would reject with a 400. */
export function decodeOpenAiSpeechRequest(body: Json): SpeechRequest {
  if (body.model === undefined) throw invalidRequest("Missing required parameter: 'model'.", 'model')
  const model = requireString(body.model, 'model')
  if (body.input === undefined) throw invalidRequest("Missing required parameter: 'input'.", 'input')
  const input = requireString(body.input, 'input')
  if (input === '') throw invalidRequest("Invalid value for 'input': it cannot be empty.", 'input')
  if (countCharacters(input) > maxInputCharacters)
    throw invalidRequest(`Invalid value for 'input': at most ${maxInputCharacters} characters are allowed.`, 'input')
  const voice = decodeVoice(body.voice)
  const format = optionalString(body.response_format, 'response_format') ?? 'mp3'
  if (!audioFormats.includes(format as AudioFormat))
    throw invalidRequest(`Invalid value for 'response_format': expected one of ${audioFormats.join(', ')}.`, 'response_format')
  const streamFormat = optionalString(body.stream_format, 'stream_format') ?? 'audio'
  if (streamFormat !== 'audio' && streamFormat !== 'sse')
    throw invalidRequest("Invalid value for 'stream_format': expected 'audio' or 'sse'.", 'stream_format')
  return {
    model,
    stream: true,
    input,
    voice,
    format: format as AudioFormat,
    speed: optionalNumber(body.speed, 'speed', { min: 0.25, max: 4 }),
    instructions: optionalString(body.instructions, 'instructions'),
    streamFormat,
    extra: Object.fromEntries(Object.entries(body).filter(([field]) => !known.has(field))),
  }
}
