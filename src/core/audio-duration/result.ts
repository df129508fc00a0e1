/** What measuring an audio file answers, shared by every container's parser. */

/**
 * The most boxes, chunks, elements or tags a parser walks through. Real files have dozens; a crafted one of
 * millions of empty boxes would otherwise hold the shared event loop for seconds.
 */
export const maxElements = 10_000

export type AudioFormat = 'wav' | 'mp3' | 'flac' | 'ogg' | 'mp4' | 'webm' | 'matroska'

export type AudioDuration =
  | { kind: 'duration'; format: AudioFormat; seconds: number }
  /** The duration cannot be read from this file: `reason` names the format and what is missing. */
  | { kind: 'failure'; format: AudioFormat | 'unknown'; reason: string }
  /** Give these bytes too (clamped to the file's end) and ask again. */
  | { kind: 'need'; format: AudioFormat | 'unknown'; offset: number; length: number }

/** A parser's answer for a file it recognised: seconds, or why not. */
export type Measurement = { seconds: number } | { failure: string }

export function failure(reason: string): { failure: string } {
  return { failure: reason }
}
