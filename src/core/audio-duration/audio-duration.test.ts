import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { measureAudioDuration, readAudioDuration, type AudioDuration } from './index.ts'

const fixtures = join(import.meta.dir, '../../../test/fixtures/audio')
const load = (name: string) => new Uint8Array(readFileSync(join(fixtures, name)))
const whole = (bytes: Uint8Array) => readAudioDuration({ size: bytes.length, ranges: [{ offset: 0, bytes }] })

/** A reader over a file that counts the bytes it hands out. */
function readerOf(bytes: Uint8Array) {
  const log = { reads: 0, bytes: 0 }
  const read = async (offset: number, length: number) => {
    log.reads++
    const slice = bytes.subarray(offset, offset + length)
    log.bytes += slice.length
    return slice
  }
  return { read, log }
}

/**
 * Made with ffmpeg 5.1 (lavfi sine sources, `-fflags +bitexact -map_metadata -1`); `ffprobe` agrees with each
 * expected duration except where noted.
 */
const cases: [file: string, format: string, seconds: number, note: string][] = [
  ['wav-pcm16.wav', 'wav', 1.5, '8 kHz 16-bit PCM'],
  ['wav-extensible24.wav', 'wav', 1.5, 'WAVE_FORMAT_EXTENSIBLE, 24-bit'],
  ['wav-list.wav', 'wav', 0.5, 'a LIST/INFO chunk before data'],
  ['mp3-cbr-plain.mp3', 'mp3', 2.0375, 'CBR MPEG-1 without Xing or ID3: bytes over bitrate'],
  ['mp3-cbr.mp3', 'mp3', 3.168, 'CBR MPEG-2.5 with an ID3v2 tag and an Info header'],
  ['mp3-vbr.mp3', 'mp3', 4.104, 'VBR MPEG-2 with a Xing header: 114 frames × 576 / 16 kHz'],
  ['flac.flac', 'flac', 1.5, 'STREAMINFO'],
  ['vorbis.ogg', 'ogg', 2.5, 'Vorbis, last granule'],
  ['opus.opus', 'ogg', 2.5, 'Opus, less its pre-skip (ffprobe says 2.5065, counting the pre-skip)'],
  ['ogg-flac.oga', 'ogg', 1.5, 'FLAC in Ogg'],
  ['m4a-faststart.m4a', 'mp4', 2, 'moov before mdat'],
  ['m4a-moov-end.m4a', 'mp4', 2, 'moov after mdat'],
  ['m4a-fragmented.m4a', 'mp4', 2.064, "fragmented (as Safari records): the last fragment's tfdt + trun"],
  ['webm-opus.webm', 'webm', 2.508, 'Info/Duration'],
  ['mka-vorbis.mka', 'matroska', 2.032, 'Matroska DocType'],
]

describe('audio duration from container headers', () => {
  test.each(cases)('%s (%s): %d s — %s', async (file, format, seconds) => {
    const bytes = load(file)
    expect(bytes.length).toBeLessThan(50_000)
    expect(whole(bytes)).toEqual({ kind: 'duration', format: format as never, seconds: expect.closeTo(seconds, 6) as never })
    // Read a kilobyte at a time, the way a spooled upload is: the same answer, from a few reads.
    const { read, log } = readerOf(bytes)
    expect(await measureAudioDuration(read, bytes.length, { readBytes: 1024 })).toEqual(whole(bytes) as never)
    expect(log.reads).toBeLessThanOrEqual(3)
  })

  test('a live WebM recording (no Duration) is measured from its last cluster', () => {
    const answer = whole(load('webm-live.webm'))
    expect(answer).toMatchObject({ kind: 'duration', format: 'webm' })
    // 2.5 s of audio plus Opus' 6.5 ms pre-skip, counted to the end of the last 20 ms block.
    expect((answer as { seconds: number }).seconds).toBeCloseTo(2.52, 1)
    expect((answer as { seconds: number }).seconds).toBeGreaterThanOrEqual(2.5)
  })

  test('a fragmented MP4 needs its length, to find its last fragment', () => {
    const bytes = load('m4a-fragmented.m4a')
    expect(readAudioDuration({ size: undefined, ranges: [{ offset: 0, bytes }] })).toEqual({
      kind: 'failure',
      format: 'mp4',
      reason: 'fragmented mp4 whose length is not known: its duration is in its last fragment',
    })
  })

  test('what a file that is not audio gets', () => {
    const refusal: AudioDuration = {
      kind: 'failure',
      format: 'unknown',
      reason: 'unknown format: not WAV, MP3, FLAC, OGG, MP4/M4A or WebM',
    }
    expect(whole(new TextEncoder().encode('%PDF-1.7\n…'))).toEqual(refusal)
    expect(whole(new TextEncoder().encode('{"text": "hello"}'))).toEqual(refusal)
    expect(whole(new Uint8Array(0))).toEqual(refusal)
    expect(whole(Uint8Array.of(0xff))).toEqual(refusal)
    expect(whole(createPngLike())).toEqual(refusal)
  })

  test('a file cut short names its format', () => {
    const flac = load('flac.flac').subarray(0, 20)
    expect(whole(flac)).toEqual({ kind: 'failure', format: 'flac', reason: 'flac cut short: the file ends before byte 26' })
  })
})

describe('damaged files get an answer, never an exception', () => {
  test.each(cases.map(([file]) => file).concat('webm-live.webm'))('%s with random damage', (file) => {
    const original = load(file)
    let seed = 7
    const random = () => (seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0) / 2 ** 32
    for (let round = 0; round < 300; round++) {
      const bytes = new Uint8Array(original.subarray(0, 1 + Math.floor(random() * original.length)))
      for (let flips = 1 + Math.floor(random() * 8); flips > 0; flips--)
        bytes[Math.floor(random() * Math.min(bytes.length, 600))] = Math.floor(random() * 256)
      const answer = whole(bytes)
      expect(['duration', 'failure', 'need']).toContain(answer.kind)
      if (answer.kind === 'duration') expect(Number.isFinite(answer.seconds) && answer.seconds >= 0).toBe(true)
    }
  })
})

describe('streaming: the parser asks for the bytes it needs', () => {
  test('with only a prefix and no size, a header-only format is measured from the prefix', () => {
    for (const file of ['wav-pcm16.wav', 'mp3-vbr.mp3', 'flac.flac', 'm4a-faststart.m4a', 'webm-opus.webm']) {
      const prefix = load(file).subarray(0, 2048)
      expect(readAudioDuration({ size: undefined, ranges: [{ offset: 0, bytes: prefix }] }).kind).toBe('duration')
    }
  })

  test('an MP4 with moov at the end asks for the bytes at its offset', () => {
    const bytes = load('m4a-moov-end.m4a')
    const first = readAudioDuration({ size: bytes.length, ranges: [{ offset: 0, bytes: bytes.subarray(0, 1024) }] })
    expect(first).toEqual({ kind: 'need', format: 'mp4', offset: 6397, length: 4 })
    const second = readAudioDuration({
      size: bytes.length,
      ranges: [
        { offset: 0, bytes: bytes.subarray(0, 1024) },
        { offset: 6397, bytes: bytes.subarray(6397) },
      ],
    })
    expect(second).toEqual({ kind: 'duration', format: 'mp4', seconds: 2 })
  })

  test('Ogg needs the file size and its tail', () => {
    const bytes = load('vorbis.ogg')
    const head = { offset: 0, bytes: bytes.subarray(0, 512) }
    expect(readAudioDuration({ size: undefined, ranges: [head] })).toEqual({
      kind: 'failure',
      format: 'ogg',
      reason: 'ogg whose length is not known: its duration is on its last page',
    })
    expect(readAudioDuration({ size: bytes.length, ranges: [head] })).toMatchObject({ kind: 'need', format: 'ogg', offset: 0 })
  })

  test('ranges given out of order and overlapping are joined', () => {
    const bytes = load('m4a-moov-end.m4a')
    const ranges = [
      { offset: 5000, bytes: bytes.subarray(5000) },
      { offset: 0, bytes: bytes.subarray(0, 3000) },
      { offset: 2500, bytes: bytes.subarray(2500, 5200) },
    ]
    expect(readAudioDuration({ size: bytes.length, ranges })).toEqual({ kind: 'duration', format: 'mp4', seconds: 2 })
  })

  test('a reader that ends early, or a file that needs too many reads, is refused', async () => {
    const bytes = load('m4a-moov-end.m4a')
    const short = async (offset: number, length: number) => bytes.subarray(offset, Math.min(offset + length, 3000))
    expect(await measureAudioDuration(short, undefined, { readBytes: 1024 })).toEqual({
      kind: 'failure',
      format: 'mp4',
      reason: 'mp4 cut short: the file ends before byte 6401',
    })
    const { read } = readerOf(bytes)
    expect(await measureAudioDuration(read, bytes.length, { readBytes: 16, maxReads: 1 })).toEqual({
      kind: 'failure',
      format: 'mp4',
      reason: 'mp4 whose duration is not within 1 reads of its headers',
    })
  })
})

/** A PNG's first bytes: a binary file that is no audio. */
function createPngLike(): Uint8Array {
  return Uint8Array.of(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52)
}
