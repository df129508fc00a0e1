import type { BodyChunks, Target } from '../../../core/provider.ts'
import type { Transport } from '../../../providers/http.ts'
import type { SpeechRequest } from '../core/ir.ts'
import type { SpeechUpstream } from '../core/upstream.ts'

/** IR → an OpenAI (or compatible) `/audio/speech` body, the fields the gateway does not know included. */
function encodeOpenAiSpeech(request: SpeechRequest, target: Target): Record<string, unknown> {
  const body: Record<string, unknown> = {
    ...request.extra,
    model: target.upstreamModel,
    input: request.input,
    voice: request.voice,
    response_format: request.format,
  }
  if (request.speed !== undefined) body.speed = request.speed
  if (request.instructions !== undefined) body.instructions = request.instructions
  if (request.streamFormat === 'sse') body.stream_format = 'sse'
  return body
}

/** Speech toward an OpenAI-compatible server: its answer's bytes, as they come, under the provider's timers. */
export function createOpenAiSpeechUpstream(transport: Transport): SpeechUpstream {
  return {
    async speak(request, target, attempt, traceparent): Promise<BodyChunks> {
      const body = JSON.stringify(encodeOpenAiSpeech(request, target))
      return transport.stream({ path: '/audio/speech', body }, attempt, traceparent)
    },
  }
}
