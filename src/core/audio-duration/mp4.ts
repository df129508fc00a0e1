/**
 * MP4 / M4A / MOV: the `moov` box's `mvhd` holds the movie's timescale and duration. `moov` is often written after
 * the audio (`mdat`), at the end of the file: top-level boxes are walked by their sizes, reading only box headers,
 * so reaching it costs a read at its offset, not the audio in between. A fragmented MP4 (Safari's MediaRecorder
 * writes them) has no total in `mvhd`: its `mehd` box has it when present, else the last fragment does.
 */
import type { ByteReader } from './byte-source.ts'
import { findBox, type Box } from './mp4-boxes.ts'
import { measureFragments } from './mp4-fragments.ts'
import { failure, type Measurement } from './result.ts'

/** Top-level box types an MP4 file may start with. */
export const leadingBoxes = new Set(['ftyp', 'moov', 'mdat', 'free', 'skip', 'wide', 'pdin'])

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
  if (!unknown) return { seconds: duration / timescale }
  const total = fragmentDuration(reader, moov)
  return total === undefined ? measureFragments(reader, moov) : { seconds: total / timescale }
}

/** `mvex/mehd`'s fragment_duration, in the movie's timescale. */
function fragmentDuration(reader: ByteReader, moov: Box): number | undefined {
  const mvex = findBox(reader, moov.body, moov.end, 'mvex')
  const mehd = mvex && findBox(reader, mvex.body, mvex.end, 'mehd')
  if (!mehd) return undefined
  const duration = reader.u8(mehd.body) === 1 ? reader.u64be(mehd.body + 4) : reader.u32be(mehd.body + 4)
  return duration > 0 ? duration : undefined
}
