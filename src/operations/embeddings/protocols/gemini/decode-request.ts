import { invalidRequest } from '../../../../core/errors.ts'
import { readField } from '../../../../protocols/gemini/read-field.ts'
import { type Json, optionalNumber, optionalString, requireArray, requireObject } from '../../../../protocols/shared/validate.ts'
import type { EmbeddingsRequest, TextInput } from '../../core/ir.ts'

/** The inputs one batchEmbedContents may carry through the gateway (the upstream's own limit is met by splitting). */
const maxRequests = 2048

/** A content's text: its text parts, one after another. A part with anything else (an image) cannot be embedded here. */
function readText(value: unknown, field: string): string {
  const content = requireObject(value, field)
  const parts = requireArray(content.parts, `${field}.parts`)
  if (parts.length === 0) throw invalidRequest(`Invalid value for '${field}.parts': it must hold at least one part.`, `${field}.parts`)
  const texts = parts.map((item, index) => {
    const part = requireObject(item, `${field}.parts[${index}]`)
    const text = optionalString(part.text, `${field}.parts[${index}].text`)
    if (text === undefined)
      throw invalidRequest(
        `Invalid value for '${field}.parts[${index}]': only text can be embedded through this gateway.`,
        `${field}.parts[${index}]`,
      )
    return text
  })
  const text = texts.join('\n')
  if (text === '') throw invalidRequest(`Invalid value for '${field}': it holds no text to embed.`, field)
  return text
}

/** One EmbedContentRequest: its input, and the vector length it asks for. */
function decodeOne(request: Json, field: string, model: string): { input: TextInput; dimensions?: number } {
  const named = optionalString(request.model, `${prefix(field)}model`)
  if (named !== undefined && named.replace(/^models\//, '') !== model) {
    throw invalidRequest(
      `Invalid value for '${prefix(field)}model': '${named}' is not models/${model}, the model this request was sent to.`,
      `${prefix(field)}model`,
    )
  }
  const input: TextInput = { text: readText(request.content, `${prefix(field)}content`) }
  const taskType = optionalString(readField(request, 'taskType'), `${prefix(field)}taskType`)
  const title = optionalString(request.title, `${prefix(field)}title`)
  if (taskType !== undefined) input.taskType = taskType
  if (title !== undefined) input.title = title
  const dimensions = optionalNumber(readField(request, 'outputDimensionality'), `${prefix(field)}outputDimensionality`, {
    min: 1,
    integer: true,
  })
  return { input, dimensions }
}

const prefix = (field: string) => (field ? `${field}.` : '')

/** `:embedContent` (one content) or `:batchEmbedContents` (`requests`, each with its own content) → the IR. */
export function decodeGeminiEmbeddingsRequest(body: Json, model: string, batch: boolean): EmbeddingsRequest {
  if (!batch) {
    const { input, dimensions } = decodeOne(body, '', model)
    return { model, stream: false, inputs: [input], dimensions, encoding: 'float' }
  }
  const list = requireArray(body.requests, 'requests')
  if (list.length === 0) throw invalidRequest("Invalid value for 'requests': it must hold at least one request.", 'requests')
  if (list.length > maxRequests)
    throw invalidRequest(`Invalid value for 'requests': at most ${maxRequests} requests are allowed, got ${list.length}.`, 'requests')
  const decoded = list.map((item, index) => decodeOne(requireObject(item, `requests[${index}]`), `requests[${index}]`, model))
  const dimensions = decoded[0]!.dimensions
  const differing = decoded.findIndex((one) => one.dimensions !== dimensions)
  if (differing !== -1) {
    const field = `requests[${differing}].outputDimensionality`
    throw invalidRequest(`Invalid value for '${field}': every request of a batch must ask for the same outputDimensionality here.`, field)
  }
  return { model, stream: false, inputs: decoded.map((one) => one.input), dimensions, encoding: 'float' }
}
