/**
 * MP3: a VBR file says how many frames it has in a Xing/Info header (LAME, ffmpeg) or a VBRI header (Fraunhofer)
 * inside its first frame; frames × samples per frame / sample rate is then exact. Without one the file is taken as
 * constant bitrate and the duration is the audio's bytes over the bitrate, which needs the file's length. The first
 * frame is found by its sync word and confirmed by a second frame where the first says it ends, since a lone
 * 0xFFE… pattern also turns up in junk before the audio.
 */
import { FileEnds, type ByteReader } from './byte-source.ts'
import { parseFrameHeader, xingOffset, type FrameHeader } from './mp3-frame.ts'
import { failure, type Measurement } from './result.ts'

/** How far past the tags the first frame is looked for. */
const syncSearchBytes = 64 * 1024

/** `start` is the first byte after any ID3v2 tags. */
export function measureMp3(reader: ByteReader, start: number): Measurement {
  const first = findFirstFrame(reader, start)
  if (!first) return failure(`mp3 without a frame in the ${syncSearchBytes} bytes after its tags`)
  const { offset, header } = first
  const frames = framesFromXing(reader, offset, header) ?? framesFromVbri(reader, offset)
  if (frames !== undefined) return { seconds: (frames * header.samplesPerFrame) / header.sampleRate }
  if (reader.size === undefined) return failure('mp3 without a Xing or VBRI header, whose length is not known')
  return { seconds: ((reader.size - offset) * 8) / (header.bitrate * 1000) }
}

function findFirstFrame(reader: ByteReader, start: number): { offset: number; header: FrameHeader } | undefined {
  const end = reader.size === undefined ? start + syncSearchBytes : Math.min(reader.size - 4, start + syncSearchBytes)
  for (let offset = start; offset <= end; offset++) {
    if (reader.u8(offset) !== 0xff) continue
    const header = confirmedHeader(reader, offset)
    if (header) return { offset, header }
  }
  return undefined
}

function confirmedHeader(reader: ByteReader, offset: number): FrameHeader | undefined {
  const header = parseFrameHeader(reader.bytes(offset, 4))
  if (!header || header.frameLength === 0) return undefined // free format (no bitrate) is not supported
  const next = offset + header.frameLength
  if (reader.size !== undefined && next + 4 > reader.size) return next === reader.size ? header : undefined
  const following = parseFrameHeader(reader.bytes(next, 4))
  return following && following.sampleRate === header.sampleRate && following.layer === header.layer ? header : undefined
}

function framesFromXing(reader: ByteReader, frame: number, header: FrameHeader): number | undefined {
  const at = frame + xingOffset(header)
  const tag = optional(() => reader.text(at, 4))
  if (tag !== 'Xing' && tag !== 'Info') return undefined
  const flags = reader.u32be(at + 4)
  return flags & 1 ? reader.u32be(at + 8) : undefined
}

/** VBRI sits 32 bytes after the header, whatever the version: tag, version, delay, quality, bytes, then frames. */
function framesFromVbri(reader: ByteReader, frame: number): number | undefined {
  if (optional(() => reader.text(frame + 36, 4)) !== 'VBRI') return undefined
  return reader.u32be(frame + 36 + 14)
}

/** A read that may run past a short file's end: there is then no such header. */
function optional<T>(read: () => T): T | undefined {
  try {
    return read()
  } catch (error) {
    if (error instanceof FileEnds) return undefined
    throw error
  }
}
