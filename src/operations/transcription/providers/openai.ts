import type { Target } from '../../../core/provider.ts'
import type { Transport } from '../../../providers/http.ts'
import { readBodyText } from '../../../providers/upstream-body.ts'
import type { TranscriptionRequest } from '../core/ir.ts'
import type { TranscriptionReply, TranscriptionUpstream } from '../core/upstream.ts'
import { decodeTranscriptionAnswer } from './decode-answer.ts'

/**
 * IR → the multipart form OpenAI's `/audio/transcriptions` and `/audio/translations` take: the spooled file as a
 * file-backed part (fetch reads it from disk as it sends, so a large upload is never in memory), the upstream's model
 * id, then the client's other fields as it sent them.
 */
export function encodeOpenAiTranscription(request: TranscriptionRequest, target: Target): { path: string; body: FormData } {
  const form = new FormData()
  const { audio } = request
  form.append('file', Bun.file(audio.path, { type: audio.contentType }), audio.filename)
  form.append('model', target.upstreamModel)
  for (const [name, value] of request.fields) form.append(name, value)
  return { path: request.task === 'translation' ? '/audio/translations' : '/audio/transcriptions', body: form }
}

/** Transcription toward an OpenAI-compatible server: a whole answer read within the body cap, or an SSE stream's bytes. */
export function createOpenAiTranscriptionUpstream(transport: Transport): TranscriptionUpstream {
  return {
    async transcribe(request, target, attempt, traceparent): Promise<TranscriptionReply> {
      const response = await transport.send(encodeOpenAiTranscription(request, target), attempt, traceparent)
      if (request.stream && response.headers.get('content-type')?.includes('text/event-stream')) {
        return { kind: 'stream', chunks: transport.readChunks(response, attempt) }
      }
      const body = await readBodyText(response, transport.config, attempt)
      return { kind: 'whole', answer: decodeTranscriptionAnswer(body, request.format, transport.config.name) }
    },
  }
}
