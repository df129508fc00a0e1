import { GatewayError } from '../../core/errors.ts'
import { isObject } from './validate.ts'

/**
 * Free-form fields a batch keeps and shows back in every answer about it (OpenAI's `metadata`, a Gemini request's
 * `metadata` and the batch's `displayName`) are bounded: five Gemini batches with 20 MB of metadata each once made one
 * listing answer 202 MB.
 */

/** OpenAI's documented limits: at most 16 pairs, keys up to 64 characters, values strings up to 512. */
const maxPairs = 16
const maxKeyChars = 64
const maxValueChars = 512

/** A Gemini request's `metadata` (any JSON, echoed with its answer), as JSON text: about what OpenAI's 16 pairs take. */
const maxMetadataBytes = 8 * 1024
/** A Gemini batch's `displayName`. */
const maxDisplayNameChars = 512

function tooLarge(field: string, message: string): GatewayError {
  return new GatewayError('invalid_request', `Invalid '${field}': ${message}`, { code: 'metadata_too_large', param: field })
}

/** OpenAI's `metadata`: absent or null, or an object of at most 16 string pairs (keys ≤ 64, values ≤ 512 characters). */
export function readOpenAiMetadata(value: unknown): Record<string, string> | null {
  if (value === undefined || value === null) return null
  if (!isObject(value)) throw new GatewayError('invalid_request', "'metadata' must be an object.", { param: 'metadata' })
  const entries = Object.entries(value)
  if (entries.length > maxPairs) throw tooLarge('metadata', `at most ${maxPairs} key-value pairs are allowed, got ${entries.length}.`)
  for (const [key, entry] of entries) {
    if (key.length > maxKeyChars)
      throw tooLarge('metadata', `keys may be at most ${maxKeyChars} characters ('${key.slice(0, 20)}…' has ${key.length}).`)
    if (typeof entry !== 'string')
      throw new GatewayError('invalid_request', `Invalid 'metadata.${key}': values must be strings.`, { param: `metadata.${key}` })
    if (entry.length > maxValueChars)
      throw tooLarge(`metadata.${key}`, `values may be at most ${maxValueChars} characters, got ${entry.length}.`)
  }
  return value as Record<string, string>
}

/** A free-form JSON field, as the JSON text it is stored as: at most `maxBytes` bytes. */
export function boundedJson(value: unknown, field: string, maxBytes = maxMetadataBytes): string {
  const text = JSON.stringify(value ?? null)
  if (text.length > maxBytes || Buffer.byteLength(text) > maxBytes)
    throw tooLarge(field, `at most ${maxBytes} bytes of JSON are allowed, got ${Buffer.byteLength(text)}.`)
  return text
}

/** A free-form name: a string of at most `maxChars` characters, or absent. */
export function boundedName(value: unknown, field: string, maxChars = maxDisplayNameChars): string | null {
  if (typeof value !== 'string') return null
  if (value.length > maxChars) throw tooLarge(field, `at most ${maxChars} characters are allowed, got ${value.length}.`)
  return value
}
