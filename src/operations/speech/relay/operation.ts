import { ceilPerMillion, type Price } from '../../../core/pricing.ts'
import type { Usage } from '../../../core/usage.ts'
import type { Attempt } from '../../../relay/attempt.ts'
import { ByteTap } from '../../../relay/byte-tap.ts'
import type { OpenedAttempt, Operation } from '../../../relay/types.ts'
import { countCharacters, type SpeechRequest } from '../core/ir.ts'
import { speechOperationName, speechUpstreamOf } from '../core/upstream.ts'
import { SpeechMeter } from './meter.ts'

/**
 * Text-to-speech as the relay runs it: held for the input's characters at `price.characters`, and, where the model
 * has token prices, for the body's bytes as input tokens and `max_output_tokens` as output; billed for the
 * characters (`units`) and the tokens the upstream reports. The audio is relayed as it comes (relay/byte-tap.ts).
 */
export const speechOperation: Operation<SpeechRequest> = {
  name: speechOperationName,
  modelKind: 'speech',
  worstCaseOn(request, inputBound, model) {
    const { price } = model
    return ceilPerMillion([
      countCharacters(request.input),
      price.characters ?? 0,
      inputBound,
      price.input,
      model.maxOutputTokens,
      price.output,
    ])
  },
  admittedTokens: (request) => Math.ceil(request.input.length / 4),
  readsOnAfterClientLeaves: () => false,
  open: openSpeechAttempt,
  createMeter: (request) => new SpeechMeter(request),
  costOf: (usage: Usage, price: Price) =>
    ceilPerMillion([usage.units ?? 0, price.characters ?? 0, usage.inputTokens, price.input, usage.outputTokens, price.output]),
  describe(request, attributes) {
    attributes['gen_ai.output.type'] = 'speech'
    attributes['gen_ai.request.audio.format'] = request.format
  },
}

/** One attempt: sent, and read until the audio's first bytes, so an upstream failing before them may be retried. */
async function openSpeechAttempt(attempt: Attempt, request: SpeechRequest): Promise<OpenedAttempt> {
  const chunks = await speechUpstreamOf(attempt.provider).speak(request, attempt.target, attempt.upstream, attempt.traceparent)
  const tap = new ByteTap(chunks, attempt.meter, attempt.call.scope)
  await tap.prime()
  return { kind: 'raw-stream', tap }
}
