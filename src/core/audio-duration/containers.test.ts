import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { measureAudioDuration, readAudioDuration } from './index.ts'

const load = (name: string) => new Uint8Array(readFileSync(join(import.meta.dir, '../../../test/fixtures/audio', name)))
const whole = (bytes: Uint8Array) => readAudioDuration({ size: bytes.length, ranges: [{ offset: 0, bytes }] })
const concat = (...parts: Uint8Array[]) => new Uint8Array(Buffer.concat(parts))
const ascii = (text: string) => new TextEncoder().encode(text)

function riffChunk(id: string, body: Uint8Array, declared = body.length): Uint8Array {
  const header = new Uint8Array(8)
  header.set(ascii(id))
  new DataView(header.buffer).setUint32(4, declared, true)
  return concat(header, body, new Uint8Array(body.length % 2))
}

function wav(...chunks: Uint8Array[]): Uint8Array {
  const body = concat(ascii('WAVE'), ...chunks)
  return concat(riffChunk('RIFF', body).subarray(0, 8), body)
}

function fmt(tag: number, sampleRate: number, byteRate: number): Uint8Array {
  const body = new Uint8Array(16)
  const view = new DataView(body.buffer)
  view.setUint16(0, tag, true)
  view.setUint16(2, 1, true)
  view.setUint32(4, sampleRate, true)
  view.setUint32(8, byteRate, true)
  return riffChunk('fmt ', body)
}

describe('WAV edge cases', () => {
  test('a data size a recorder could not fill in (0xFFFFFFFF or 0) is what the file holds', () => {
    const audio = new Uint8Array(16_000)
    expect(whole(wav(fmt(1, 8000, 16_000), riffChunk('data', audio, 0xffffffff)))).toEqual({ kind: 'duration', format: 'wav', seconds: 1 })
    expect(whole(wav(fmt(1, 8000, 16_000), riffChunk('data', audio, 0)))).toEqual({ kind: 'duration', format: 'wav', seconds: 1 })
  })

  test('a data size past the end of the file is cut to the file: only those bytes reach the upstream', () => {
    expect(whole(wav(fmt(1, 8000, 16_000), riffChunk('data', new Uint8Array(8000), 1_600_000_000)))).toEqual({
      kind: 'duration',
      format: 'wav',
      seconds: 0.5,
    })
  })

  test('without the file size (a prefix of an upload), the declared size is used', () => {
    const file = wav(fmt(1, 8000, 16_000), riffChunk('data', new Uint8Array(100), 48_000))
    expect(readAudioDuration({ size: undefined, ranges: [{ offset: 0, bytes: file.subarray(0, 60) }] })).toEqual({
      kind: 'duration',
      format: 'wav',
      seconds: 3,
    })
  })

  test('compressed WAV uses the fact chunk sample count', () => {
    const fact = new Uint8Array(4)
    new DataView(fact.buffer).setUint32(0, 12_000, true)
    expect(whole(wav(fmt(0x11, 8000, 4055), riffChunk('fact', fact), riffChunk('data', new Uint8Array(6000))))).toEqual({
      kind: 'duration',
      format: 'wav',
      seconds: 1.5,
    })
  })

  test('missing or misplaced chunks are named', () => {
    expect(whole(wav(fmt(1, 8000, 16_000)))).toEqual({ kind: 'failure', format: 'wav', reason: 'wav without a data chunk' })
    expect(whole(wav(riffChunk('data', new Uint8Array(10)), fmt(1, 8000, 16_000)))).toEqual({
      kind: 'failure',
      format: 'wav',
      reason: 'wav with its data chunk before the fmt chunk',
    })
    expect(whole(wav(fmt(1, 8000, 0), riffChunk('data', new Uint8Array(10))))).toEqual({
      kind: 'failure',
      format: 'wav',
      reason: 'wav whose fmt chunk gives no byte rate',
    })
  })
})

describe('MP4 with its index after a large mdat', () => {
  const fixture = load('m4a-moov-end.m4a')
  const ftyp = fixture.subarray(0, 28)
  const moov = fixture.subarray(6397)
  const audioBytes = 60 * 1024 * 1024

  /** ftyp, a 60 MB mdat (its body never materialised), moov: a reader over that virtual file, counting bytes. */
  function virtualFile(mdatHeader: Uint8Array) {
    const moovAt = ftyp.length + mdatHeader.length + audioBytes
    const size = moovAt + moov.length
    const log = { reads: 0, bytes: 0 }
    const read = async (offset: number, length: number) => {
      const end = Math.min(size, offset + length)
      const out = new Uint8Array(end - offset)
      const place = (part: Uint8Array, at: number) => {
        const from = Math.max(offset, at)
        const to = Math.min(end, at + part.length)
        if (from < to) out.set(part.subarray(from - at, to - at), from - offset)
      }
      place(ftyp, 0)
      place(mdatHeader, ftyp.length)
      place(moov, moovAt)
      log.reads++
      log.bytes += out.length
      return out
    }
    return { read, size, log }
  }

  test('moov is reached with a read at its offset, not by reading 60 MB', async () => {
    const header = new Uint8Array(8)
    new DataView(header.buffer).setUint32(0, audioBytes + 8)
    header.set(ascii('mdat'), 4)
    const file = virtualFile(header)
    expect(await measureAudioDuration(file.read, file.size)).toEqual({ kind: 'duration', format: 'mp4', seconds: 2 })
    expect(file.log.reads).toBe(2)
    expect(file.log.bytes).toBeLessThan(200_000)
  })

  test('a 64-bit box size (size 1, then the real size) is followed too', async () => {
    const header = new Uint8Array(16)
    const view = new DataView(header.buffer)
    view.setUint32(0, 1)
    header.set(ascii('mdat'), 4)
    view.setBigUint64(8, BigInt(audioBytes + 16))
    const file = virtualFile(header)
    expect(await measureAudioDuration(file.read, file.size)).toEqual({ kind: 'duration', format: 'mp4', seconds: 2 })
  })

  test('"moof" inside trailing bytes is not taken for the last fragment', () => {
    const bytes = load('m4a-fragmented.m4a')
    const junk = concat(Uint8Array.of(0, 0, 0, 24), ascii('moof'), new Uint8Array(16), ascii('moof'), Uint8Array.of(0, 0, 0))
    const answer = whole(concat(bytes, Uint8Array.of(0, 0, 0, 8 + junk.length), ascii('free'), junk))
    expect(answer).toEqual({ kind: 'duration', format: 'mp4', seconds: expect.closeTo(2.064, 6) as never })
  })

  test('an mp4 whose boxes end without a moov says so', () => {
    expect(whole(fixture.subarray(0, 6397))).toEqual({ kind: 'failure', format: 'mp4', reason: 'mp4 without a moov box' })
  })
})

describe('crafted files cannot make a parser walk forever', () => {
  test('20,000 empty boxes or chunks stop the walk at 10,000, quickly', () => {
    const boxes = new Uint8Array(8 * 20_000)
    for (let at = 0; at < boxes.length; at += 8) {
      new DataView(boxes.buffer).setUint32(at, 8)
      boxes.set(ascii('free'), at + 4)
    }
    const started = performance.now()
    expect(whole(concat(load('m4a-moov-end.m4a').subarray(0, 28), boxes))).toEqual({
      kind: 'failure',
      format: 'mp4',
      reason: 'mp4 without a moov box',
    })
    const chunks = concat(...Array.from({ length: 20_000 }, () => riffChunk('junk', new Uint8Array(0))))
    expect(whole(wav(fmt(1, 8000, 16_000), chunks))).toEqual({
      kind: 'failure',
      format: 'wav',
      reason: 'wav without a data chunk in its first 10000 chunks',
    })
    expect(performance.now() - started).toBeLessThan(1_000)
  })
})

describe('Ogg tails', () => {
  test('an OggS pattern after the last page that fails its CRC is not taken for a page', () => {
    const bytes = load('vorbis.ogg')
    const pageStart = Buffer.from(bytes).lastIndexOf('OggS')
    const fake = new Uint8Array(bytes.subarray(pageStart)) // a whole copy of the last page…
    new DataView(fake.buffer).setBigInt64(6, 16_000n * 3600n, true) // …with a granule of an hour, CRC left as it was
    expect(whole(concat(bytes, fake))).toEqual({ kind: 'duration', format: 'ogg', seconds: 2.5 })
  })

  test('an Ogg stream of another codec is named', () => {
    const bytes = new Uint8Array(load('vorbis.ogg'))
    bytes.set(ascii('\x01theora'), 28)
    expect(whole(bytes)).toEqual({ kind: 'failure', format: 'ogg', reason: 'ogg with a codec other than Vorbis, Opus or FLAC' })
  })
})

describe('WebM / Matroska structure', () => {
  /** An EBML element with an 8-byte size. */
  const element = (id: number[], ...body: Uint8Array[]) => {
    const data = concat(...body)
    const size = new Uint8Array(8)
    new DataView(size.buffer).setBigUint64(0, BigInt(data.length))
    size[0] = 0x01
    return concat(Uint8Array.from(id), size, data)
  }
  const unsigned = (value: number) => Uint8Array.of(value >> 24, value >> 16, value >> 8, value).subarray(value < 2 ** 24 ? 1 : 0)
  const float64 = (value: number) => {
    const bytes = new Uint8Array(8)
    new DataView(bytes.buffer).setFloat64(0, value)
    return bytes
  }
  const header = element([0x1a, 0x45, 0xdf, 0xa3], element([0x42, 0x82], ascii('webm')))

  test('Info after the first Cluster is found through the SeekHead, with its TimecodeScale', () => {
    const cluster = element([0x1f, 0x43, 0xb6, 0x75], element([0xe7], Uint8Array.of(0)))
    const info = element([0x15, 0x49, 0xa9, 0x66], element([0x2a, 0xd7, 0xb1], unsigned(100_000)), element([0x44, 0x89], float64(12_345)))
    // SeekHead > Seek > SeekID (Info's ID), SeekPosition (from the Segment's data: past SeekHead and Cluster)
    const seekHeadOf = (position: number) =>
      element(
        [0x11, 0x4d, 0x9b, 0x74],
        element([0x4d, 0xbb], element([0x53, 0xab], Uint8Array.of(0x15, 0x49, 0xa9, 0x66)), element([0x53, 0xac], Uint8Array.of(position))),
      )
    const seekHead = seekHeadOf(seekHeadOf(0).length + cluster.length)
    const segment = element([0x18, 0x53, 0x80, 0x67], seekHead, cluster, info)
    // 12,345 ticks of 100 µs
    expect(whole(concat(header, segment))).toEqual({ kind: 'duration', format: 'webm', seconds: 1.2345 })
  })

  test('a Cluster before any Info, with no SeekHead, is a failure naming WebM', () => {
    const cluster = element([0x1f, 0x43, 0xb6, 0x75], element([0xe7], Uint8Array.of(0)))
    expect(whole(concat(header, element([0x18, 0x53, 0x80, 0x67], cluster)))).toEqual({
      kind: 'failure',
      format: 'webm',
      reason: 'webm without segment information before its first cluster',
    })
  })

  test('an EBML size longer than 8 bytes is malformed', () => {
    expect(whole(concat(header, Uint8Array.of(0x18, 0x53, 0x80, 0x67, 0x00, 0, 0, 0, 0, 0, 0, 0, 0)))).toEqual({
      kind: 'failure',
      format: 'webm',
      reason: 'webm with a malformed element: an EBML size of 9 bytes at byte 30',
    })
  })
})
