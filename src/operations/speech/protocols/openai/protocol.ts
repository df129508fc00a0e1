import { bearerToken } from '../../../../edge/auth.ts'
import { GatewayError } from '../../../../core/errors.ts'
import { sseHeaders } from '../../../../core/sse.ts'
import { encodeOpenAiRateLimitHeaders, openAiErrorResponse } from '../../../../protocols/openai-chat/error-response.ts'
import type { ClientProtocol, Exchange } from '../../../../protocols/shared/client-protocol.ts'
import type { AudioFormat, SpeechRequest } from '../../core/ir.ts'
import { speechOperation } from '../../relay/operation.ts'
import { decodeOpenAiSpeechRequest } from './decode-request.ts'

/** The content type of each format, as OpenAI's speech endpoint answers it. */
const contentTypes: Record<AudioFormat, string> = {
  mp3: 'audio/mpeg',
  opus: 'audio/opus',
  aac: 'audio/aac',
  flac: 'audio/flac',
  wav: 'audio/wav',
  pcm: 'audio/pcm',
}

/** One `/v1/audio/speech` request: its IR, and the content type its audio goes out with. */
class OpenAiSpeechExchange implements Exchange {
  readonly streamContentType: string

  constructor(readonly request: SpeechRequest) {
    this.streamContentType = request.streamFormat === 'sse' ? sseHeaders['content-type'] : contentTypes[request.format]
  }

  encodeWhole(): string {
    throw new GatewayError('internal', 'A speech answer is relayed as a stream of audio')
  }
}

/** POST /v1/audio/speech: decode, relay, and the upstream's audio streamed through as it comes. */
export const openAiSpeech: ClientProtocol = {
  operation: speechOperation,
  name: 'openai-speech',
  readSecret: bearerToken,
  decode: (body) => new OpenAiSpeechExchange(decodeOpenAiSpeechRequest(body)),
  answerHeaders: (requestId, rateLimit) => encodeOpenAiRateLimitHeaders(rateLimit, { 'x-request-id': requestId }),
  renderError: openAiErrorResponse,
  wholeContentType: 'application/json',
}
