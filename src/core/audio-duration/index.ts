/**
 * The duration of an audio upload, read from its container's header, before it is sent upstream: transcription is
 * priced per minute, so the hold needs the length first (issue 29). WAV, MP3, FLAC, Ogg (Vorbis, Opus, FLAC),
 * MP4/M4A and WebM/Matroska. A small parser per container rather than a media library: a few hundred lines read
 * only headers, run anywhere `bun build --compile` does, and never decode audio.
 *
 * readAudioDuration is synchronous over the bytes given and asks for more when it must (`kind: 'need'`);
 * measureAudioDuration drives it over any async reader (a spooled upload, a growing prefix).
 */
import { ByteReader, FileEnds, MissingBytes, type AudioBytes, type ByteRange } from './byte-source.ts'
import { afterId3Tags, detectFormat } from './detect.ts'
import { EbmlError } from './ebml.ts'
import { measureFlac } from './flac.ts'
import { measureMatroska } from './matroska.ts'
import { measureMp3 } from './mp3.ts'
import { measureMp4 } from './mp4.ts'
import { measureOgg } from './ogg.ts'
import type { AudioDuration, AudioFormat, Measurement } from './result.ts'
import { measureWav } from './wav.ts'

export type { AudioBytes, ByteRange } from './byte-source.ts'
export type { AudioDuration, AudioFormat } from './result.ts'

const formats = 'WAV, MP3, FLAC, OGG, MP4/M4A or WebM'

export function readAudioDuration(source: AudioBytes): AudioDuration {
  const reader = new ByteReader(source)
  let format: AudioFormat | 'unknown' = 'unknown'
  try {
    const start = afterId3Tags(reader)
    const detected = detectFormat(reader, start)
    if (!detected) return { kind: 'failure', format, reason: `unknown format: not ${formats}` }
    format = detected
    const { format: named, measurement } = measure(detected, reader, start)
    format = named
    if ('failure' in measurement) return { kind: 'failure', format, reason: measurement.failure }
    if (!Number.isFinite(measurement.seconds) || measurement.seconds < 0)
      return { kind: 'failure', format, reason: `${format} whose header gives an impossible duration` }
    return { kind: 'duration', format, seconds: measurement.seconds }
  } catch (error) {
    if (error instanceof MissingBytes) return { kind: 'need', format, offset: error.offset, length: error.length }
    if (error instanceof FileEnds)
      return { kind: 'failure', format, reason: `${format === 'unknown' ? 'a file' : format} cut short: ${error.message}` }
    if (error instanceof EbmlError) return { kind: 'failure', format, reason: `${format} with a malformed element: ${error.message}` }
    throw error
  }
}

function measure(format: AudioFormat, reader: ByteReader, start: number): { format: AudioFormat; measurement: Measurement } {
  switch (format) {
    case 'wav':
      return { format, measurement: measureWav(reader) }
    case 'mp3':
      return { format, measurement: measureMp3(reader, start) }
    case 'flac':
      return { format, measurement: measureFlac(reader, start) }
    case 'ogg':
      return { format, measurement: measureOgg(reader) }
    case 'mp4':
      return { format, measurement: measureMp4(reader) }
    case 'webm':
    case 'matroska':
      return measureMatroska(reader)
  }
}

export interface MeasureOptions {
  /** Bytes read at a time, at least (the parsers often ask for a few bytes at a time). */
  readBytes?: number
  /** Reads before giving up, so a hostile file cannot make the caller read forever. */
  maxReads?: number
}

/**
 * Measures a file through `read(offset, length)`, which returns those bytes (fewer only at the file's end). Reads
 * are at least `readBytes` long (64 KiB) and at most `maxReads` (16) are made; a file that needs more is refused.
 */
export async function measureAudioDuration(
  read: (offset: number, length: number) => Promise<Uint8Array>,
  size: number | undefined,
  options: MeasureOptions = {},
): Promise<Exclude<AudioDuration, { kind: 'need' }>> {
  const readBytes = options.readBytes ?? 64 * 1024
  const ranges: ByteRange[] = []
  for (let reads = 0; ; reads++) {
    const answer = readAudioDuration({ size, ranges })
    if (answer.kind !== 'need') return answer
    if (reads === (options.maxReads ?? 16))
      return {
        kind: 'failure',
        format: answer.format,
        reason: `${answer.format === 'unknown' ? 'a file' : answer.format} whose duration is not within ${reads} reads of its headers`,
      }
    const length = Math.max(answer.length, readBytes)
    const clamped = size === undefined ? length : Math.min(length, size - answer.offset)
    const bytes = await read(answer.offset, clamped)
    if (bytes.length < answer.length)
      return {
        kind: 'failure',
        format: answer.format,
        reason: `${answer.format === 'unknown' ? 'a file' : answer.format} cut short: the file ends before byte ${answer.offset + answer.length}`,
      }
    ranges.push({ offset: answer.offset, bytes })
  }
}
