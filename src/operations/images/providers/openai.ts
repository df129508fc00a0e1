import type { Target } from '../../../core/provider.ts'
import { GatewayError } from '../../../core/errors.ts'
import { checkedUsage, reportedCount } from '../../../core/usage.ts'
import { fileForm } from '../../../providers/file-form.ts'
import type { OutgoingRequest, Transport } from '../../../providers/http.ts'
import type { ImagesAnswer, ImagesRequest } from '../core/ir.ts'
import type { ImagesUpstream } from '../core/upstream.ts'

interface OpenAiImagesResponse {
  created?: unknown
  data?: { b64_json?: unknown; url?: unknown; revised_prompt?: unknown }[]
  size?: unknown
  quality?: unknown
  output_format?: unknown
  background?: unknown
  usage?: { input_tokens?: unknown; output_tokens?: unknown } | null
}

function malformed(what: string): GatewayError {
  return new GatewayError('upstream', `Upstream sent an images answer that ${what}`, { code: 'upstream_malformed' })
}

const stringOr = (value: unknown) => (typeof value === 'string' ? value : undefined)

/** The request's settings as OpenAI names them; only what the client gave (gpt-image models refuse `response_format`). */
function openAiImageFields(request: ImagesRequest, target: Target): Record<string, string | number> {
  const fields: Record<string, string | number> = { model: target.upstreamModel, prompt: request.prompt, n: request.n }
  if (request.size !== undefined) fields.size = request.size
  if (request.quality !== undefined) fields.quality = request.quality
  if (request.responseFormat !== undefined) fields.response_format = request.responseFormat
  if (request.outputFormat !== undefined) fields.output_format = request.outputFormat
  return { ...fields, ...request.options }
}

/** A generation as JSON; an edit as a form whose files are read from disk as they are sent (never held whole). */
function encodeOpenAiImages(request: ImagesRequest, target: Target): OutgoingRequest {
  const fields = openAiImageFields(request, target)
  if (!request.edit) return { path: '/images/generations', body: JSON.stringify(fields) }
  const { images, mask } = request.edit
  const files = (mask ? [...images, mask] : images).map((file) => ({
    field: file.field,
    path: file.path,
    filename: file.filename,
    contentType: file.contentType,
    size: file.bytes,
  }))
  return {
    path: '/images/edits',
    body: fileForm(
      Object.entries(fields).map(([name, value]) => [name, String(value)]),
      files,
    ),
  }
}

/** An images answer → IR: each image's bytes or URL, what the upstream says it made, and its token report. */
function decodeOpenAiImages(body: unknown): ImagesAnswer {
  const answer = (body ?? {}) as OpenAiImagesResponse
  if (!Array.isArray(answer.data)) throw malformed('has no data')
  const images = answer.data.map((item) => {
    const b64 = stringOr(item?.b64_json)
    const url = stringOr(item?.url)
    if (b64 === undefined && url === undefined) throw malformed('holds an image with neither b64_json nor url')
    return { b64, url, revisedPrompt: stringOr(item.revised_prompt) }
  })
  const usage = answer.usage
    ? checkedUsage({
        inputTokens: reportedCount(answer.usage.input_tokens),
        cachedInputTokens: 0,
        cacheWriteTokens: 0,
        outputTokens: reportedCount(answer.usage.output_tokens),
        reasoningTokens: 0,
      })
    : undefined
  return {
    created: typeof answer.created === 'number' ? answer.created : Math.floor(Date.now() / 1000),
    images,
    usage,
    size: stringOr(answer.size),
    quality: stringOr(answer.quality),
    outputFormat: stringOr(answer.output_format),
    background: stringOr(answer.background),
  }
}

const imagesDecoder = { decodeResponse: decodeOpenAiImages }

/** Images toward an OpenAI (or compatible) upstream: `/images/generations` and `/images/edits`. */
export function createOpenAiImagesUpstream(transport: Transport): ImagesUpstream {
  return {
    async create(request, target, attempt, traceparent) {
      return transport.answer(encodeOpenAiImages(request, target), imagesDecoder, attempt, traceparent)
    },
  }
}
