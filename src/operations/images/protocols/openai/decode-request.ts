import { invalidRequest } from '../../../../core/errors.ts'
import { type Json, optionalNumber, optionalString, requireString } from '../../../../protocols/shared/validate.ts'
import type { ImagesRequest } from '../../core/ir.ts'

/** OpenAI's own limit on `n`; a model may allow fewer (`max_images`). */
const maxN = 10

const sizePattern = /^(auto|[1-9]\d{0,4}x[1-9]\d{0,4})$/
const qualities = ['auto', 'low', 'medium', 'high', 'standard', 'hd']
const outputFormats = ['png', 'jpeg', 'webp']

/** Settings the upstream takes as they are: named and type-checked here, so a misspelt one is a 400, not a surprise. */
const passedOn = {
  background: 'string',
  style: 'string',
  moderation: 'string',
  user: 'string',
  output_compression: 'number',
  input_fidelity: 'string',
} as const

function oneOf(value: string | undefined, allowed: readonly string[], field: string): string | undefined {
  if (value !== undefined && !allowed.includes(value))
    throw invalidRequest(`Invalid value for '${field}': '${value}'; expected one of ${allowed.join(', ')}.`, field)
  return value
}

/**
 * A generation's JSON body, or an edit's form fields (all strings: numbers are read from them), → the IR, refusing
 * what the API itself refuses with a 400.
 */
export function decodeOpenAiImagesRequest(body: Json, fromForm = false): ImagesRequest {
  const number = (field: string) => (fromForm && typeof body[field] === 'string' ? Number(body[field]) : body[field])
  if (body.model === undefined) throw invalidRequest("Missing required parameter: 'model'.", 'model')
  const model = requireString(body.model, 'model')
  if (body.prompt === undefined) throw invalidRequest("Missing required parameter: 'prompt'.", 'prompt')
  const prompt = requireString(body.prompt, 'prompt')
  if (prompt === '') throw invalidRequest("Invalid value for 'prompt': it cannot be empty.", 'prompt')
  if (body.stream === true || body.stream === 'true')
    throw invalidRequest("Invalid value for 'stream': this gateway answers images whole, not streamed.", 'stream')
  const size = optionalString(body.size, 'size')
  if (size !== undefined && !sizePattern.test(size))
    throw invalidRequest(`Invalid value for 'size': '${size}'; expected WIDTHxHEIGHT (like 1024x1024) or auto.`, 'size')
  const responseFormat = oneOf(
    optionalString(body.response_format, 'response_format'),
    ['url', 'b64_json'],
    'response_format',
  ) as ImagesRequest['responseFormat']
  const options: Record<string, string | number> = {}
  for (const [field, type] of Object.entries(passedOn)) {
    const value =
      type === 'number' ? optionalNumber(number(field), field, { min: 0, max: 100, integer: true }) : optionalString(body[field], field)
    if (value !== undefined) options[field] = value
  }
  return {
    model,
    stream: false,
    prompt,
    n: optionalNumber(number('n'), 'n', { min: 1, max: maxN, integer: true }) ?? 1,
    size,
    quality: oneOf(optionalString(body.quality, 'quality'), qualities, 'quality'),
    responseFormat,
    outputFormat: oneOf(optionalString(body.output_format, 'output_format'), outputFormats, 'output_format'),
    options,
  }
}
