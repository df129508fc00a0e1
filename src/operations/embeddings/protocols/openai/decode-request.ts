import { invalidRequest } from '../../../../core/errors.ts'
import { type Json, optionalNumber, optionalString, requireString } from '../../../../protocols/shared/validate.ts'
import type { EmbeddingInput, EmbeddingsRequest } from '../../core/ir.ts'

/** OpenAI's own limit: inputs per request. */
const maxInputs = 2048

const inputForms = 'a string, an array of strings, an array of token ids, or an array of arrays of token ids'

/** A token id list: a non-empty array of whole numbers ≥ 0. */
function isTokenList(value: unknown): value is number[] {
  return Array.isArray(value) && value.length > 0 && value.every((id) => Number.isSafeInteger(id) && id >= 0)
}

/** `input` in each of its four forms → the IR's inputs, refusing what OpenAI refuses (empty, mixed, too many). */
function decodeInputs(value: unknown): EmbeddingInput[] {
  if (value === undefined) throw invalidRequest("Missing required parameter: 'input'.", 'input')
  if (typeof value === 'string') {
    if (value === '') throw invalidRequest("Invalid value for 'input': it cannot be an empty string.", 'input')
    return [{ text: value }]
  }
  if (!Array.isArray(value) || value.length === 0)
    throw invalidRequest(`Invalid value for 'input': expected ${inputForms}, not empty.`, 'input')
  if (value.length > maxInputs)
    throw invalidRequest(`Invalid value for 'input': at most ${maxInputs} inputs are allowed per request, got ${value.length}.`, 'input')
  if (typeof value[0] === 'number') {
    if (!isTokenList(value)) throw invalidRequest("Invalid value for 'input': token ids must be whole numbers of 0 or more.", 'input')
    return [{ tokens: value }]
  }
  const texts = typeof value[0] === 'string'
  return value.map((item, index) => {
    const field = `input[${index}]`
    if (texts) {
      if (typeof item !== 'string' || item === '')
        throw invalidRequest(`Invalid value for '${field}': expected a non-empty string, as every input of this array.`, field)
      return { text: item }
    }
    if (!isTokenList(item))
      throw invalidRequest(
        `Invalid value for '${field}': expected a non-empty array of token ids (whole numbers of 0 or more); input must be ${inputForms}.`,
        field,
      )
    return { tokens: item }
  })
}

/** An `/embeddings` body → the IR, rejecting what the API itself would reject with a 400. */
export function decodeOpenAiEmbeddingsRequest(body: Json): EmbeddingsRequest {
  if (body.model === undefined) throw invalidRequest("Missing required parameter: 'model'.", 'model')
  const model = requireString(body.model, 'model')
  const inputs = decodeInputs(body.input)
  const encoding = optionalString(body.encoding_format, 'encoding_format') ?? 'float'
  if (encoding !== 'float' && encoding !== 'base64')
    throw invalidRequest("Invalid value for 'encoding_format': expected 'float' or 'base64'.", 'encoding_format')
  return {
    model,
    stream: false,
    inputs,
    dimensions: optionalNumber(body.dimensions, 'dimensions', { min: 1, integer: true }),
    encoding,
    user: optionalString(body.user, 'user'),
  }
}
