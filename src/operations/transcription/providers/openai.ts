import type { Target } from '../../../core/provider.ts'
import type { Transport } from '../../../providers/http.ts'
import { type FileForm, fileForm } from '../../../providers/file-form.ts'
import type { TranscriptionRequest } from '../core/ir.ts'
import type { TranscriptionReply, TranscriptionUpstream } from '../core/upstream.ts'
import { decodeTranscriptionAnswer } from './decode-answer.ts'

/**
 * IR → the multipart form OpenAI's `/audio/transcriptions` and `/audio/translations` take: the upstream's model id,
 * the client's other fields as it sent them, then the spooled file, read from disk as it is sent (file-form.ts).
 */
function encodeOpenAiTranscription(request: TranscriptionRequest, target: Target): { path: string; body: FileForm } {
  const { audio } = request
  const fields: [string, string][] = [['model', target.upstreamModel], ...request.fields]
  const body = fileForm(fields, {
    field: 'file',
    path: audio.path,
    filename: audio.filename,
    contentType: audio.contentType,
    size: audio.bytes,
  })
  return { path: request.task === 'translation' ? '/audio/translations' : '/audio/transcriptions', body }
}

/** Transcription toward an OpenAI-compatible server: a whole answer read within the body cap, or an SSE stream's bytes. */
export function createOpenAiTranscriptionUpstream(transport: Transport): TranscriptionUpstream {
  return {
    async transcribe(request, target, attempt, traceparent): Promise<TranscriptionReply> {
      const answer = await transport.send(encodeOpenAiTranscription(request, target), attempt, traceparent)
      if (request.stream && answer.contentType?.includes('text/event-stream')) return { kind: 'stream', chunks: answer.readBytes() }
      const body = await answer.readText()
      return { kind: 'whole', answer: decodeTranscriptionAnswer(body, request.format, transport.config.name) }
    },
  }
}
