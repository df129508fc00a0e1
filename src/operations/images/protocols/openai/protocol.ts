import { GatewayError } from '../../../../core/errors.ts'
import { bearerToken } from '../../../../edge/auth.ts'
import { encodeOpenAiRateLimitHeaders, openAiErrorResponse } from '../../../../protocols/openai-chat/error-response.ts'
import type { ClientProtocol, Exchange } from '../../../../protocols/shared/client-protocol.ts'
import type { ImagesAnswer, ImagesRequest } from '../../core/ir.ts'
import { imagesOperation } from '../../relay/operation.ts'
import { decodeOpenAiImagesRequest } from './decode-request.ts'
import { encodeOpenAiImages } from './encode-response.ts'
import { type EditForm, readEditForm } from './read-edit-form.ts'

/** One `/v1/images/generations` or `/v1/images/edits` request: its IR, and its answer in OpenAI's shape. */
class OpenAiImagesExchange implements Exchange {
  constructor(
    readonly request: ImagesRequest,
    private readonly form?: EditForm,
  ) {}

  /** An edit's files, kept aside for every attempt, are removed once the relay is done with them. */
  dispose(): Promise<void> {
    return this.form?.remove() ?? Promise.resolve()
  }

  encodeWhole(answer: ImagesAnswer): string {
    return encodeOpenAiImages(answer, this.request.responseFormat)
  }
}

/** What both images endpoints share: OpenAI's key, errors and rate-limit headers. */
const openAiImagesFront = {
  operation: imagesOperation,
  readSecret: bearerToken,
  answerHeaders: (requestId: string, rateLimit: Parameters<typeof encodeOpenAiRateLimitHeaders>[0]) =>
    encodeOpenAiRateLimitHeaders(rateLimit, { 'x-request-id': requestId }),
  renderError: openAiErrorResponse,
  wholeContentType: 'application/json',
}

/** POST /v1/images/generations: a JSON body, decoded, relayed, encoded. */
export const openAiImageGenerations: ClientProtocol = {
  ...openAiImagesFront,
  name: 'openai-images',
  decode: (body) => new OpenAiImagesExchange(decodeOpenAiImagesRequest(body)),
}

/**
 * An edit's input side: the prompt's bytes, and each image at most as many tokens as its bytes or as an image of
 * the largest size gpt-image models read (2048 × 2048, high fidelity), whichever is more — a small file of many
 * pixels still holds enough.
 */
const tokensPerImageAtMost = 10_000

/** POST /v1/images/edits: a multipart form read as a stream, its files kept on disk (read-edit-form.ts), relayed. */
export const openAiImageEdits: ClientProtocol = {
  ...openAiImagesFront,
  name: 'openai-images',
  decode() {
    throw new GatewayError('internal', 'An edit is a form, read by readExchange')
  },
  async readExchange(request, limits) {
    const form = await readEditForm(request, limits)
    try {
      const decoded = decodeOpenAiImagesRequest(form.fields, true)
      const exchange = new OpenAiImagesExchange({ ...decoded, edit: { images: form.images, mask: form.mask } }, form)
      const inputBound = form.bytes + (form.images.length + (form.mask ? 1 : 0)) * tokensPerImageAtMost
      return { exchange, inputBound }
    } catch (error) {
      await form.remove()
      throw error
    }
  },
}
