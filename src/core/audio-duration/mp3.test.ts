import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { measureAudioDuration, readAudioDuration } from './index.ts'
import { parseFrameHeader } from './mp3-frame.ts'

const load = (name: string) => new Uint8Array(readFileSync(join(import.meta.dir, '../../../test/fixtures/audio', name)))
const whole = (bytes: Uint8Array) => readAudioDuration({ size: bytes.length, ranges: [{ offset: 0, bytes }] })
const withoutSize = (bytes: Uint8Array) => readAudioDuration({ size: undefined, ranges: [{ offset: 0, bytes }] })
const join2 = (...parts: Uint8Array[]) => new Uint8Array(Buffer.concat(parts))

/** MPEG-1 layer III, 128 kb/s, 44.1 kHz, stereo: 417 bytes a frame, 1152 samples. */
const header128 = Uint8Array.of(0xff, 0xfb, 0x90, 0x00)

function frame(extra: (bytes: Uint8Array, view: DataView) => void = () => {}): Uint8Array {
  const bytes = new Uint8Array(417)
  bytes.set(header128)
  extra(bytes, new DataView(bytes.buffer))
  return bytes
}

/** An ID3v2.4 tag of `size` body bytes (synchsafe length). */
function id3(size: number): Uint8Array {
  const tag = new Uint8Array(10 + size)
  tag.set([0x49, 0x44, 0x33, 4, 0, 0, (size >> 21) & 0x7f, (size >> 14) & 0x7f, (size >> 7) & 0x7f, size & 0x7f])
  return tag
}

describe('MPEG audio frame headers', () => {
  test('bitrate, sample rate, samples per frame and frame length for each version and layer', () => {
    expect(parseFrameHeader(header128)).toEqual({
      version: 1,
      layer: 3,
      bitrate: 128,
      sampleRate: 44_100,
      samplesPerFrame: 1152,
      frameLength: 417,
      mono: false,
    })
    expect(parseFrameHeader(Uint8Array.of(0xff, 0xfb, 0x92, 0xc0))).toMatchObject({ frameLength: 418, mono: true }) // padded
    expect(parseFrameHeader(Uint8Array.of(0xff, 0xf3, 0x80, 0x00))).toMatchObject({
      version: 2,
      layer: 3,
      bitrate: 64,
      sampleRate: 22_050,
      samplesPerFrame: 576,
      frameLength: 208,
    })
    expect(parseFrameHeader(Uint8Array.of(0xff, 0xe3, 0x48, 0xc0))).toMatchObject({
      version: 2,
      bitrate: 32,
      sampleRate: 8_000,
      samplesPerFrame: 576,
    }) // MPEG-2.5
    expect(parseFrameHeader(Uint8Array.of(0xff, 0xfd, 0x90, 0x00))).toMatchObject({
      layer: 2,
      bitrate: 160,
      samplesPerFrame: 1152,
      frameLength: 522,
    })
    expect(parseFrameHeader(Uint8Array.of(0xff, 0xff, 0xc0, 0x00))).toMatchObject({
      layer: 1,
      bitrate: 384,
      samplesPerFrame: 384,
      frameLength: 416,
    })
  })

  test('reserved values, and ADTS AAC (layer bits 00), are not frame headers', () => {
    expect(parseFrameHeader(Uint8Array.of(0xff, 0xf1, 0x50, 0x80))).toBeUndefined() // ADTS AAC
    expect(parseFrameHeader(Uint8Array.of(0xff, 0xeb, 0x90, 0x00))).toBeUndefined() // version 01 is reserved
    expect(parseFrameHeader(Uint8Array.of(0xff, 0xfb, 0xf0, 0x00))).toBeUndefined() // bitrate index 15
    expect(parseFrameHeader(Uint8Array.of(0xff, 0xfb, 0x9c, 0x00))).toBeUndefined() // sample rate index 3
    expect(parseFrameHeader(Uint8Array.of(0xfe, 0xfb, 0x90, 0x00))).toBeUndefined()
  })
})

describe('MP3 duration', () => {
  test('a VBRI header (Fraunhofer encoders) gives the frame count', () => {
    const vbri = frame((bytes, view) => {
      bytes.set(new TextEncoder().encode('VBRI'), 36)
      view.setUint16(40, 1) // version
      view.setUint32(50, 1_000) // frames
    })
    expect(whole(join2(vbri, frame()))).toEqual({ kind: 'duration', format: 'mp3', seconds: (1_000 * 1152) / 44_100 })
  })

  test('a Xing header without a frame count falls back on the bitrate', () => {
    const xing = frame((bytes) => bytes.set(new TextEncoder().encode('Xing\0\0\0\0'), 36))
    expect(whole(join2(xing, frame(), frame()))).toEqual({ kind: 'duration', format: 'mp3', seconds: (3 * 417 * 8) / 128_000 })
  })

  test('a large ID3v2 tag (cover art) is skipped with a read past it, not read through', async () => {
    const bytes = join2(id3(500_000), load('mp3-vbr.mp3'))
    const log = { reads: 0, bytes: 0 }
    const read = async (offset: number, length: number) => {
      log.reads++
      log.bytes += Math.min(length, bytes.length - offset)
      return bytes.subarray(offset, offset + length)
    }
    expect(await measureAudioDuration(read, bytes.length)).toEqual({
      kind: 'duration',
      format: 'mp3',
      seconds: expect.closeTo(4.104, 6) as never,
    })
    expect(log.bytes).toBeLessThan(200_000)
    expect(log.reads).toBeLessThanOrEqual(3)
  })

  test('junk and a false sync word between the tag and the first frame are passed over', () => {
    const original = load('mp3-cbr.mp3')
    const tagEnd = 20 // ffmpeg's tag: a 10-byte header and 10 bytes of padding
    const junk = new Uint8Array(300)
    junk.set(header128, 100) // a lone frame header whose "next frame" is not there
    expect(whole(join2(original.subarray(0, tagEnd), junk, original.subarray(tagEnd)))).toEqual({
      kind: 'duration',
      format: 'mp3',
      seconds: expect.closeTo(3.168, 6) as never,
    })
  })

  test('constant bitrate without a header needs the file length', () => {
    const bytes = load('mp3-cbr-plain.mp3')
    expect(withoutSize(bytes)).toEqual({
      kind: 'failure',
      format: 'mp3',
      reason: 'mp3 without a Xing or VBRI header, whose length is not known',
    })
  })

  test('an ID3 tag followed by no audio is a failure naming mp3', () => {
    expect(whole(join2(id3(100), new Uint8Array(1000)))).toEqual({
      kind: 'failure',
      format: 'mp3',
      reason: 'mp3 without a frame in the 65536 bytes after its tags',
    })
  })
})
