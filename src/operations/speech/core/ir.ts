import type { OperationRequest } from '../../../core/operation.ts'

/**
 * Speech's internal format (IR): text to be spoken, as OpenAI's `/v1/audio/speech` decodes into and every upstream
 * kind encodes from. The answer is the upstream's audio, relayed as bytes (relay/byte-tap.ts): it has no IR.
 */

/** The audio containers OpenAI's speech endpoint makes. */
export const audioFormats = ['mp3', 'opus', 'aac', 'flac', 'wav', 'pcm'] as const
export type AudioFormat = (typeof audioFormats)[number]

export interface SpeechRequest extends OperationRequest {
  /** The gateway model id the client asked for (not the upstream id). */
  readonly model: string
  /** Always true: the audio goes to the client as it comes. */
  stream: boolean
  /** The text to speak. */
  input: string
  /** A built-in voice's name, or a custom voice's id (`{ id }`). */
  voice: string | { id: string }
  format: AudioFormat
  /** 0.25 to 4. */
  speed?: number
  /** How to speak (tone, accent…), for models that take it. */
  instructions?: string
  /** `audio`: the file's bytes; `sse`: `speech.audio.delta` events of base64 audio, then `speech.audio.done` with usage. */
  streamFormat: 'audio' | 'sse'
  /**
   * The body's fields the gateway does not know (a compatible server's `lang_code`, `normalize`…), as the client sent
   * them: an OpenAI-compatible upstream gets them too.
   */
  extra: Record<string, unknown>
}

/**
 * Characters as speech is billed for them: Unicode code points (an emoji or a CJK character is one, as a reader
 * counts them), not UTF-16 units.
 */
export function countCharacters(text: string): number {
  let count = 0
  for (const _ of text) count++
  return count
}
