import { GatewayError } from '../../../core/errors.ts'
import type { TranscriptionAnswer, TranscriptFormat } from '../core/ir.ts'
import { transcriptionTokens } from '../core/tokens.ts'

const jsonFormats: readonly TranscriptFormat[] = ['json', 'verbose_json', 'diarized_json']

/**
 * A whole transcription answer, relayed as the upstream wrote it, with what it reports: tokens (`usage.type: tokens`)
 * or seconds (`usage.type: duration`, or verbose_json's `duration`). A JSON format whose body is not JSON is the
 * upstream's fault (a 502, retried on another route); text, SRT and VTT report nothing.
 */
export function decodeTranscriptionAnswer(body: string, format: TranscriptFormat, provider: string): TranscriptionAnswer {
  if (!jsonFormats.includes(format)) return { body }
  let parsed: { usage?: { type?: unknown; seconds?: unknown }; duration?: unknown; text?: unknown }
  try {
    parsed = JSON.parse(body)
  } catch {
    throw new GatewayError('upstream', `Upstream ${provider} sent a transcription that is not JSON`, { code: 'upstream_malformed' })
  }
  if (typeof parsed?.text !== 'string')
    throw new GatewayError('upstream', `Upstream ${provider} sent a transcription without text`, { code: 'upstream_malformed' })
  const answer: TranscriptionAnswer = { body, usage: transcriptionTokens(parsed.usage) }
  const seconds = parsed.usage?.type === 'duration' ? parsed.usage.seconds : parsed.duration
  if (typeof seconds === 'number' && Number.isFinite(seconds) && seconds >= 0) answer.seconds = seconds
  return answer
}
