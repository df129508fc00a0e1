import type { ModelConfig } from '../../../config/types.ts'
import { GatewayError } from '../../../core/errors.ts'
import type { Price } from '../../../core/pricing.ts'
import type { Usage } from '../../../core/usage.ts'
import type { Attempt } from '../../../relay/attempt.ts'
import { ByteTap } from '../../../relay/byte-tap.ts'
import type { OpenedAttempt, Operation } from '../../../relay/types.ts'
import { transcriptionCost } from '../core/cost.ts'
import { billedSeconds, type TranscriptionRequest } from '../core/ir.ts'
import { transcriptionOperationName, transcriptionUpstreamOf } from '../core/upstream.ts'
import { TranscriptionMeter } from './meter.ts'

/**
 * The seconds a request is held for on `model`: the audio's length from its header, else the model's
 * `max_audio_seconds`. A file whose length cannot be read, on a model without that setting, is a 400 naming its
 * format and what is wrong with it; a file longer than the model takes is a 400 too.
 */
function heldSeconds(request: TranscriptionRequest, model: ModelConfig): number {
  const { duration } = request
  if (duration.kind === 'duration') {
    const seconds = billedSeconds(duration.seconds)
    if (model.maxAudioSeconds !== undefined && seconds > model.maxAudioSeconds) {
      throw new GatewayError(
        'invalid_request',
        `The audio is ${seconds} seconds long; the model '${model.id}' takes at most ${model.maxAudioSeconds} seconds.`,
        {
          param: 'file',
          code: 'audio_too_long',
        },
      )
    }
    return seconds
  }
  if (model.maxAudioSeconds !== undefined) return model.maxAudioSeconds
  throw new GatewayError(
    'invalid_request',
    `The file's audio duration cannot be read (${duration.reason}): send WAV, MP3, FLAC, OGG, MP4/M4A or WebM audio.`,
    {
      param: 'file',
      code: 'unreadable_audio',
    },
  )
}

/**
 * Transcriptions and translations as the relay runs them: held for the audio's seconds at `price.audio_minute` and,
 * where the model has token prices, the file's bytes as input tokens and `max_output_tokens` as output; billed for
 * the whole seconds (`units`) and the tokens the upstream reports.
 */
export const transcriptionOperation: Operation<TranscriptionRequest> = {
  name: transcriptionOperationName,
  modelKind: 'transcription',
  checkPlan(request, plan) {
    for (const { model } of plan) {
      const seconds = heldSeconds(request, model)
      // Billed when neither the header nor the upstream says how long the audio was (estimated).
      if (request.duration.kind !== 'duration') request.unmeasuredSeconds = Math.max(request.unmeasuredSeconds ?? 0, seconds)
    }
  },
  worstCaseOn: (request, inputBound, model) =>
    transcriptionCost(heldSeconds(request, model), inputBound, model.maxOutputTokens, model.price),
  admittedTokens: () => 0,
  readsOnAfterClientLeaves: () => false,
  open: openTranscriptionAttempt,
  createMeter: (request) => new TranscriptionMeter(request),
  costOf: (usage: Usage, price: Price) => transcriptionCost(usage.units ?? 0, usage.inputTokens, usage.outputTokens, price),
  describe(request, attributes) {
    attributes['gen_ai.request.task'] = request.task
    attributes['gen_ai.output.type'] = request.format
  },
}

/** One attempt: the spooled file sent, and the answer read whole, or a stream read until its first bytes. */
async function openTranscriptionAttempt(attempt: Attempt, request: TranscriptionRequest): Promise<OpenedAttempt> {
  const reply = await transcriptionUpstreamOf(attempt.provider).transcribe(request, attempt.target, attempt.upstream, attempt.traceparent)
  if (reply.kind === 'whole') {
    attempt.meter.observeAnswer(reply.answer)
    return { kind: 'raw', body: reply.answer.body }
  }
  const tap = new ByteTap(reply.chunks, attempt.meter, attempt.call.scope)
  await tap.prime()
  return { kind: 'raw-stream', tap }
}
