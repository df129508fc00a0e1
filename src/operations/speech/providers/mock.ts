import type { BodyChunks } from '../../../core/provider.ts'
import { listedChunks } from '../../../providers/listed-chunks.ts'
import { formatSse } from '../../../core/sse.ts'
import { refuseField } from '../../../providers/refuse-field.ts'
import { countCharacters, type SpeechRequest } from '../core/ir.ts'
import type { SpeechUpstream } from '../core/upstream.ts'

/** The mock speaks 16-bit mono PCM at 24 kHz, as OpenAI's `pcm` format. */
const sampleRate = 24_000
/** 40 ms of silence per character, at most 5 s: an answer of a few chunks, small enough for any test. */
const secondsPerCharacter = 0.04
const maxSeconds = 5
const chunkBytes = 8 * 1024

/** Silence for `request`, as WAV (its 44-byte header first) or raw PCM. */
export function mockSpeechAudio(request: Pick<SpeechRequest, 'input' | 'format'>): Uint8Array<ArrayBuffer> {
  const samples = Math.round(Math.min(countCharacters(request.input) * secondsPerCharacter, maxSeconds) * sampleRate)
  const pcm = new Uint8Array(samples * 2)
  if (request.format === 'pcm') return pcm
  const header = Buffer.alloc(44)
  header.write('RIFF', 0, 'ascii')
  header.writeUInt32LE(36 + pcm.length, 4)
  header.write('WAVEfmt ', 8, 'ascii')
  header.writeUInt32LE(16, 16)
  header.writeUInt16LE(1, 20) // PCM
  header.writeUInt16LE(1, 22) // mono
  header.writeUInt32LE(sampleRate, 24)
  header.writeUInt32LE(sampleRate * 2, 28)
  header.writeUInt16LE(2, 32)
  header.writeUInt16LE(16, 34)
  header.write('data', 36, 'ascii')
  header.writeUInt32LE(pcm.length, 40)
  return Buffer.concat([header, pcm])
}

/** The mock's tokens for a speech request, reported in its SSE stream as OpenAI's are: input a token per four characters, output one per 50 ms. */
export function mockSpeechTokens(request: Pick<SpeechRequest, 'input'>): { input: number; output: number } {
  const characters = countCharacters(request.input)
  return { input: Math.ceil(characters / 4), output: Math.ceil(Math.min(characters * secondsPerCharacter, maxSeconds) * 20) }
}

/** The answer's pieces as SSE events (`speech.audio.delta` of base64 audio, then `speech.audio.done` with usage). */
function sseChunks(audio: Uint8Array, request: SpeechRequest): Uint8Array[] {
  const chunks: Uint8Array[] = []
  for (let start = 0; start < audio.length; start += chunkBytes) {
    const delta = Buffer.from(audio.subarray(start, start + chunkBytes)).toString('base64')
    chunks.push(Buffer.from(formatSse(JSON.stringify({ type: 'speech.audio.delta', audio: delta }))))
  }
  const tokens = mockSpeechTokens(request)
  const usage = { input_tokens: tokens.input, output_tokens: tokens.output, total_tokens: tokens.input + tokens.output }
  chunks.push(Buffer.from(formatSse(JSON.stringify({ type: 'speech.audio.done', usage }))))
  return chunks
}

/**
 * The built-in provider's speech: silence as WAV or PCM, handed out a chunk at a time (listed-chunks.ts). Other
 * formats would need an encoder: they are refused, naming the field.
 */
export function createMockSpeechUpstream(): SpeechUpstream {
  return {
    async speak(request, _target, attempt): Promise<BodyChunks> {
      if (request.format !== 'wav' && request.format !== 'pcm')
        throw refuseField('response_format', 'mock', `makes wav and pcm audio only, not ${request.format}`)
      const audio = mockSpeechAudio(request)
      const chunks: Uint8Array[] = []
      if (request.streamFormat === 'sse') chunks.push(...sseChunks(audio, request))
      else for (let start = 0; start < audio.length; start += chunkBytes) chunks.push(audio.subarray(start, start + chunkBytes))
      return listedChunks(chunks, attempt)
    },
  }
}
