/**
 * MP4 / M4A / MOV: the `moov` box's `mvhd` holds the movie's timescale and duration. `moov` is often written after
 * the audio (`mdat`), at the end of the file: top-level boxes are walked by their sizes, reading only box headers,
 * so reaching it costs a read at its offset, not the audio in between. A fragmented MP4 has no total in `mvhd`;
 * its `mehd` box, when present, has it.
 */
import type { ByteReader } from './byte-source.ts'
import { failure, maxElements, type Measurement } from './result.ts'

/** Top-level box types an MP4 file may start with. */
export const leadingBoxes = new Set(['ftyp', 'moov', 'mdat', 'free', 'skip', 'wide', 'pdin'])

interface Box {
  type: string
  start: number
  /** Where the body starts (after the 8- or 16-byte header). */
  body: number
  end: number
}

export function measureMp4(reader: ByteReader): Measurement {
  const moov = findBox(reader, 0, reader.size, 'moov')
  if (!moov) return failure('mp4 without a moov box')
  const mvhd = findBox(reader, moov.body, moov.end, 'mvhd')
  if (!mvhd) return failure('mp4 without an mvhd box in its moov')
  const version = reader.u8(mvhd.body)
  const timescale = reader.u32be(mvhd.body + (version === 1 ? 20 : 12))
  const duration = version === 1 ? reader.u64be(mvhd.body + 24) : reader.u32be(mvhd.body + 16)
  if (timescale === 0) return failure('mp4 whose mvhd gives no timescale')
  // 0 and all ones both mean "not known here" (a fragmented file, a recorder that never finished the header).
  const unknown = duration === 0 || (version === 0 && duration === 0xffffffff) || duration >= 2 ** 53
  const known = unknown ? fragmentDuration(reader, moov) : duration
  if (known === undefined) return failure('fragmented mp4 without a total duration (no mehd box)')
  return { seconds: known / timescale }
}

/** `mvex/mehd`'s fragment_duration, in the movie's timescale. */
function fragmentDuration(reader: ByteReader, moov: Box): number | undefined {
  const mvex = findBox(reader, moov.body, moov.end, 'mvex')
  const mehd = mvex && findBox(reader, mvex.body, mvex.end, 'mehd')
  if (!mehd) return undefined
  const duration = reader.u8(mehd.body) === 1 ? reader.u64be(mehd.body + 4) : reader.u32be(mehd.body + 4)
  return duration > 0 ? duration : undefined
}

/** The first box of `type` among the boxes from `start` to `end` (the file's end when undefined). */
function findBox(reader: ByteReader, start: number, end: number | undefined, type: string): Box | undefined {
  for (let offset = start, count = 0; (end === undefined || offset + 8 <= end) && count < maxElements; count++) {
    const box = readBox(reader, offset, end)
    if (box.type === type) return box
    if (box.end <= offset || !Number.isFinite(box.end)) return undefined // corrupt, or the last box runs to the end
    offset = box.end
  }
  return undefined
}

function readBox(reader: ByteReader, offset: number, end: number | undefined): Box {
  const size = reader.u32be(offset)
  const type = reader.text(offset + 4, 4)
  if (size === 1) return { type, start: offset, body: offset + 16, end: offset + reader.u64be(offset + 8) }
  // Size 0: the box runs to the end of its parent (the file, at top level).
  if (size === 0) return { type, start: offset, body: offset + 8, end: end ?? Number.POSITIVE_INFINITY }
  return { type, start: offset, body: offset + 8, end: offset + size }
}
