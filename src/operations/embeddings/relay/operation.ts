import type { Attempt } from '../../../relay/attempt.ts'
import type { OpenedAttempt, Operation } from '../../../relay/types.ts'
import { ceilPerMillion, type Price, worstCaseCost } from '../../../core/pricing.ts'
import type { Usage } from '../../../core/usage.ts'
import { countInputTokens, roughInputTokens } from '../core/count-inputs.ts'
import type { EmbeddingsAnswer, EmbeddingsRequest } from '../core/ir.ts'
import { embeddingsOperationName, embeddingsUpstreamOf } from '../core/upstream.ts'
import { checkedAnswer, embedInCalls } from './embed-in-calls.ts'
import { WholeAnswerMeter } from '../../../relay/whole-answer-meter.ts'

/**
 * Embeddings as the relay runs them (relay/types.ts `Operation`): held for their input bounded by the body's bytes
 * (there is no output side), billed for the input tokens the upstream reports × `price.input` — or, when it reports
 * none, the gateway tokenizer's count of the inputs, marked estimated. `units` counts the inputs embedded.
 */
export const embeddingsOperation: Operation<EmbeddingsRequest> = {
  name: embeddingsOperationName,
  modelKind: 'embedding',
  worstCaseOn(request, inputBound, model) {
    // A byte-level tokenizer never makes more tokens than bytes; a context window bounds each input.
    const bound = model.contextWindow ? Math.min(inputBound, model.contextWindow * request.inputs.length) : inputBound
    return worstCaseCost(bound, 0, model.price)
  },
  admittedTokens: (request) => roughInputTokens(request.inputs),
  readsOnAfterClientLeaves: () => false,
  open: openEmbeddingsAttempt,
  // A client that leaves before its vectors pays for its input, as a chat client that leaves pays for its prompt.
  createMeter: (request) =>
    new WholeAnswerMeter(async () => ({
      inputTokens: await countInputTokens(request.inputs),
      cachedInputTokens: 0,
      cacheWriteTokens: 0,
      outputTokens: 0,
      reasoningTokens: 0,
      estimated: true,
    })),
  costOf: (usage: Usage, price: Price) => ceilPerMillion([usage.inputTokens, price.input]),
  describe(request, attributes) {
    if (request.dimensions !== undefined) attributes['gen_ai.embeddings.dimension.count'] = request.dimensions
    attributes['gen_ai.request.encoding_formats'] = [request.encoding]
  },
}

/**
 * One attempt: the client's own body forwarded when the upstream speaks its protocol and takes every input in one
 * call (passthrough: fields the gateway does not know reach the upstream too), else the IR in as many calls as the
 * upstream needs. Either way the answer is whole, so nothing reaches the client before it is billed.
 */
async function openEmbeddingsAttempt(attempt: Attempt, request: EmbeddingsRequest): Promise<OpenedAttempt> {
  const { call, target, meter } = attempt
  const upstream = embeddingsUpstreamOf(attempt.provider)
  const passthrough =
    call.codec.forward && upstream.passthrough?.protocol === call.protocol && request.inputs.length <= upstream.inputsPerCall
      ? upstream.passthrough
      : undefined
  if (passthrough) {
    const forwarded = await passthrough.forward(call.codec.forward!(target), target, attempt.upstream, attempt.traceparent)
    const { body, answer } = await forwarded.readWhole()
    meter.observeAnswer(await withUsage(checkedAnswer(answer, request, attempt), request))
    return { kind: 'raw', body }
  }
  const answer = await withUsage(await embedInCalls(upstream, request, attempt), request)
  meter.observeAnswer(answer)
  return { kind: 'answer', answer }
}

/**
 * The answer with the usage it is billed at, and tells its client: the upstream's report when it made one, else
 * the gateway's count of the inputs, marked estimated. Settled here, before the answer is written, so that what a
 * client is told it used is what it pays for.
 */
async function withUsage(answer: EmbeddingsAnswer, request: EmbeddingsRequest): Promise<EmbeddingsAnswer> {
  const units = request.inputs.length
  if (answer.usage && answer.usage.inputTokens > 0) return { ...answer, usage: { ...answer.usage, units } }
  const inputTokens = await countInputTokens(request.inputs)
  return {
    ...answer,
    usage: { inputTokens, cachedInputTokens: 0, cacheWriteTokens: 0, outputTokens: 0, reasoningTokens: 0, units, estimated: true },
  }
}
