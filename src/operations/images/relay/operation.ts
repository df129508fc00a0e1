import { ceilPerMillion } from '../../../core/pricing.ts'
import { GatewayError, invalidRequest } from '../../../core/errors.ts'
import type { Attempt } from '../../../relay/attempt.ts'
import type { OpenedAttempt, Operation } from '../../../relay/types.ts'
import { imagesCost, requestVariant, roughPromptTokens, usageOfAnswer } from '../core/bill.ts'
import { dearestImagePrice } from '../core/image-prices.ts'
import type { ImagesRequest } from '../core/ir.ts'
import { imagesOperationName, imagesUpstreamOf } from '../core/upstream.ts'
import { WholeAnswerMeter } from '../../../relay/whole-answer-meter.ts'

/**
 * Images as the relay runs them (relay/types.ts `Operation`), generations and edits alike: held for `n` images at
 * the dearest price the request's size and quality may be answered at — or, for a model priced per token, its
 * input bounded by the body's bytes and `n` × `max_output_tokens` — and billed for the images made, at the size
 * and quality the upstream says it made (or for the tokens it reports). `units` counts the images.
 */
export const imagesOperation: Operation<ImagesRequest> = {
  name: imagesOperationName,
  modelKind: 'image',
  checkPlan(request, plan) {
    for (const { model } of plan) {
      if (request.n > model.maxImages) {
        throw invalidRequest(
          `Invalid value for 'n': the model '${model.id}' makes at most ${model.maxImages} images a request, got ${request.n}.`,
          'n',
        )
      }
      if (model.price.images) dearestImagePrice(model.price.images, model.id, request.size, request.quality)
    }
  },
  worstCaseOn(request, inputBound, model) {
    const { price } = model
    if (price.images) return request.n * dearestImagePrice(price.images, model.id, request.size, request.quality)
    return ceilPerMillion([inputBound, price.input, request.n * model.maxOutputTokens, price.output])
  },
  admittedTokens: roughPromptTokens,
  readsOnAfterClientLeaves: () => false,
  open: openImagesAttempt,
  // A client that leaves before its images is billed for its prompt (a model priced per image: nothing).
  createMeter: (request) =>
    new WholeAnswerMeter(() => ({
      inputTokens: roughPromptTokens(request),
      cachedInputTokens: 0,
      cacheWriteTokens: 0,
      outputTokens: 0,
      reasoningTokens: 0,
      units: 0,
      variant: requestVariant(request),
      estimated: true,
    })),
  costOf: imagesCost,
  describe(request, attributes) {
    attributes['gen_ai.request.choice.count'] = request.n
    if (request.size !== undefined) attributes['tollgate.images.size'] = request.size
    if (request.quality !== undefined) attributes['tollgate.images.quality'] = request.quality
  },
}

/** One attempt: the whole answer, its usage settled before it is written, so what the client sees is what it pays. */
async function openImagesAttempt(attempt: Attempt, request: ImagesRequest): Promise<OpenedAttempt> {
  const upstream = imagesUpstreamOf(attempt.provider)
  const answer = await upstream.create(request, attempt.target, attempt.upstream, attempt.traceparent)
  if (answer.images.length === 0 || answer.images.length > request.n) {
    throw new GatewayError('upstream', `Upstream ${attempt.target.provider.name} sent ${answer.images.length} images for n=${request.n}`, {
      code: 'upstream_malformed',
    })
  }
  // Bytes asked for and only a URL sent: the gateway fetches no URLs, so this route failed to answer (another may).
  if (request.responseFormat === 'b64_json' && answer.images.some((image) => image.b64 === undefined)) {
    throw new GatewayError('upstream', `Upstream ${attempt.target.provider.name} sent image URLs where b64_json was asked for`, {
      code: 'upstream_malformed',
    })
  }
  const billed = { ...answer, usage: usageOfAnswer(answer, request, attempt.target.model) }
  attempt.meter.observeAnswer(billed)
  return { kind: 'answer', answer: billed }
}
