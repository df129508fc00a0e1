import type { BodyChunks } from '../../../core/provider.ts'
import { listedChunks } from '../../../providers/listed-chunks.ts'
import { formatSse } from '../../../core/sse.ts'
import type { TranscriptionRequest } from '../core/ir.ts'
import type { TranscriptionReply, TranscriptionUpstream } from '../core/upstream.ts'

/** What the mock hears in a file: its length and container, so a test can tell which file reached it. */
function mockTranscript(request: Pick<TranscriptionRequest, 'duration' | 'task'>): string {
  const { duration } = request
  const heard = duration.kind === 'duration' ? `${duration.seconds.toFixed(2)} seconds of ${duration.format}` : 'audio of unknown length'
  return request.task === 'translation' ? `(translated) ${heard}` : heard
}

/** SRT's and VTT's time stamps: `00:00:01,500` (SRT) or `00:00:01.500` (VTT). */
function timestamp(seconds: number, separator: ',' | '.'): string {
  const milliseconds = Math.round(seconds * 1000)
  const pad = (value: number, width = 2) => String(value).padStart(width, '0')
  return `${pad(Math.floor(milliseconds / 3_600_000))}:${pad(Math.floor(milliseconds / 60_000) % 60)}:${pad(Math.floor(milliseconds / 1000) % 60)}${separator}${pad(milliseconds % 1000, 3)}`
}

/** The mock's answer in the format asked for, reporting the seconds it heard as whisper-1 does (`usage.type: duration`). */
function mockTranscriptionBody(request: TranscriptionRequest): string {
  const text = mockTranscript(request)
  const seconds = request.duration.kind === 'duration' ? request.duration.seconds : 0
  const usage = { type: 'duration', seconds: Math.ceil(seconds) }
  switch (request.format) {
    case 'text':
      return text
    case 'srt':
      return `1\n${timestamp(0, ',')} --> ${timestamp(seconds, ',')}\n${text}\n`
    case 'vtt':
      return `WEBVTT\n\n${timestamp(0, '.')} --> ${timestamp(seconds, '.')}\n${text}\n`
    case 'verbose_json': {
      const granularities = request.fields.filter(([name]) => name === 'timestamp_granularities[]').map(([, value]) => value)
      const answer: Record<string, unknown> = {
        task: request.task === 'translation' ? 'translate' : 'transcribe',
        language: 'english',
        duration: seconds,
        text,
        usage,
      }
      if (granularities.includes('word'))
        answer.words = text
          .split(' ')
          .map((word, index, words) => ({ word, start: (seconds * index) / words.length, end: (seconds * (index + 1)) / words.length }))
      if (granularities.length === 0 || granularities.includes('segment'))
        answer.segments = [
          {
            id: 0,
            seek: 0,
            start: 0,
            end: seconds,
            text,
            tokens: [],
            temperature: 0,
            avg_logprob: 0,
            compression_ratio: 1,
            no_speech_prob: 0,
          },
        ]
      return JSON.stringify(answer)
    }
    default:
      return JSON.stringify({ text, usage })
  }
}

/** A streamed transcript: its words as `transcript.text.delta` events, then `transcript.text.done` (no token usage: billed by seconds). */
function streamOf(request: TranscriptionRequest, attempt: AbortController): BodyChunks {
  const text = mockTranscript(request)
  const chunks = text
    .split(' ')
    .map((word, index) => Buffer.from(formatSse(JSON.stringify({ type: 'transcript.text.delta', delta: (index ? ' ' : '') + word }))))
  chunks.push(Buffer.from(formatSse(JSON.stringify({ type: 'transcript.text.done', text }))))
  return listedChunks(chunks, attempt)
}

/** The built-in provider's transcription: it hears only the file's length and container (deterministic). */
export function createMockTranscriptionUpstream(): TranscriptionUpstream {
  return {
    async transcribe(request, _target, attempt): Promise<TranscriptionReply> {
      if (request.stream) return { kind: 'stream', chunks: streamOf(request, attempt) }
      const body = mockTranscriptionBody(request)
      return { kind: 'whole', answer: { body, seconds: request.duration.kind === 'duration' ? request.duration.seconds : undefined } }
    },
  }
}
