import { rm } from 'node:fs/promises'
import { GatewayError } from '../../../../core/errors.ts'
import { bearerToken } from '../../../../edge/auth.ts'
import { encodeOpenAiRateLimitHeaders, openAiErrorResponse } from '../../../../protocols/openai-chat/error-response.ts'
import type { ClientProtocol, Exchange } from '../../../../protocols/shared/client-protocol.ts'
import type { TranscriptionRequest } from '../../core/ir.ts'
import { transcriptionOperation } from '../../relay/operation.ts'
import { decodeOpenAiTranscriptionRequest } from './decode-request.ts'
import { readAudioForm } from './read-form.ts'

/** One transcription request: its IR, its answer's content type, and its spooled file, removed when it is done. */
class OpenAiTranscriptionExchange implements Exchange {
  readonly wholeContentType: string

  constructor(readonly request: TranscriptionRequest) {
    const json = request.format === 'json' || request.format === 'verbose_json' || request.format === 'diarized_json'
    this.wholeContentType = json ? 'application/json' : 'text/plain; charset=utf-8'
  }

  encodeWhole(): string {
    throw new GatewayError('internal', 'A transcription is relayed as its upstream wrote it')
  }

  dispose(): Promise<void> {
    return rm(this.request.audio.path, { force: true })
  }
}

function transcriptionProtocol(task: TranscriptionRequest['task']): ClientProtocol {
  return {
    operation: transcriptionOperation,
    name: `openai-${task}`,
    readSecret: bearerToken,
    decode: () => {
      throw new GatewayError('internal', 'A transcription form is read by readExchange')
    },
    async readExchange(request, limits) {
      const form = await readAudioForm(request, limits)
      try {
        return { exchange: new OpenAiTranscriptionExchange(decodeOpenAiTranscriptionRequest(form, task)), inputBound: form.audio.bytes }
      } catch (error) {
        await rm(form.audio.path, { force: true })
        throw error
      }
    },
    answerHeaders: (requestId, rateLimit) => encodeOpenAiRateLimitHeaders(rateLimit, { 'x-request-id': requestId }),
    renderError: openAiErrorResponse,
    wholeContentType: 'application/json',
  }
}

/** POST /v1/audio/transcriptions and /v1/audio/translations: a form read as it streams in, relayed, answered as the upstream wrote it. */
export const openAiTranscriptions = transcriptionProtocol('transcription')
export const openAiTranslations = transcriptionProtocol('translation')
