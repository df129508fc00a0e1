/**
 * The length of a fragmented MP4 without a total (no `mehd`): the last fragment's start time (`tfdt`) plus the
 * durations of its samples (`trun`, or the defaults in `tfhd` / `trex`), in the track's timescale (`mdhd`). The
 * last `moof` is found by scanning the file's end for its type; a candidate counts only if its size is sane, its
 * first child is `mfhd` and an `mdat` follows it, so the four letters turning up inside audio are not taken.
 */
import { FileEnds, type ByteReader } from './byte-source.ts'
import { findBox, type Box } from './mp4-boxes.ts'
import { failure, type Measurement } from './result.ts'
import { scanTail } from './scan-tail.ts'

export function measureFragments(reader: ByteReader, moov: Box): Measurement {
  const trak = findBox(reader, moov.body, moov.end, 'trak')
  const mdia = trak && findBox(reader, trak.body, trak.end, 'mdia')
  const mdhd = mdia && findBox(reader, mdia.body, mdia.end, 'mdhd')
  if (!mdhd) return failure('fragmented mp4 without a track timescale (mdhd)')
  const timescale = reader.u32be(mdhd.body + (reader.u8(mdhd.body) === 1 ? 20 : 12))
  if (timescale === 0) return failure('fragmented mp4 whose mdhd gives no timescale')
  if (reader.size === undefined) return failure('fragmented mp4 whose length is not known: its duration is in its last fragment')
  const mvex = findBox(reader, moov.body, moov.end, 'mvex')
  const trex = mvex && findBox(reader, mvex.body, mvex.end, 'trex')
  const defaultDuration = trex ? reader.u32be(trex.body + 12) : 0
  const moof = [0x6d, 0x6f, 0x6f, 0x66]
  const end = scanTail(reader, moov.end + 4, moof, (offset) => fragmentEnd(reader, offset - 4, defaultDuration))
  return end === undefined
    ? failure('fragmented mp4 without a total duration, and no fragment found near its end')
    : { seconds: end / timescale }
}

/** The end time of the fragment whose `moof` starts at `offset`, or undefined if it is not one. */
function fragmentEnd(reader: ByteReader, offset: number, defaultDuration: number): number | undefined {
  try {
    const size = reader.u32be(offset)
    if (size < 16 || offset + size > reader.size! || reader.text(offset + 12, 4) !== 'mfhd') return undefined
    if (offset + size + 8 <= reader.size! && reader.text(offset + size + 4, 4) !== 'mdat') return undefined
    const traf = findBox(reader, offset + 8, offset + size, 'traf')
    const tfdt = traf && findBox(reader, traf.body, traf.end, 'tfdt')
    if (!traf || !tfdt) return undefined
    const startTime = reader.u8(tfdt.body) === 1 ? reader.u64be(tfdt.body + 4) : reader.u32be(tfdt.body + 4)
    return startTime + fragmentLength(reader, traf, defaultDuration)
  } catch (error) {
    if (error instanceof FileEnds) return undefined
    throw error
  }
}

/** The sum of a track fragment's sample durations, over all its `trun` boxes. */
function fragmentLength(reader: ByteReader, traf: Box, trexDuration: number): number {
  const tfhd = findBox(reader, traf.body, traf.end, 'tfhd')
  let defaultDuration = trexDuration
  if (tfhd) {
    const flags = reader.u32be(tfhd.body) & 0xffffff
    // After track_ID: base_data_offset (8) if 0x01, sample_description_index (4) if 0x02, then the duration if 0x08.
    if (flags & 0x08) defaultDuration = reader.u32be(tfhd.body + 8 + (flags & 0x01 ? 8 : 0) + (flags & 0x02 ? 4 : 0))
  }
  let total = 0
  for (let at = traf.body; at + 8 <= traf.end; ) {
    const box = findBox(reader, at, traf.end, 'trun')
    if (!box) break
    total += runLength(reader, box, defaultDuration)
    at = box.end
  }
  return total
}

function runLength(reader: ByteReader, trun: Box, defaultDuration: number): number {
  const flags = reader.u32be(trun.body) & 0xffffff
  const count = reader.u32be(trun.body + 4)
  if (!(flags & 0x100)) return count * defaultDuration
  // Per sample: duration (0x100), size (0x200), flags (0x400), composition offset (0x800), 4 bytes each if present.
  const stride = 4 * [0x100, 0x200, 0x400, 0x800].filter((bit) => flags & bit).length
  let at = trun.body + 8 + (flags & 0x01 ? 4 : 0) + (flags & 0x04 ? 4 : 0)
  if (at + count * stride > trun.end) throw new FileEnds(at + count * stride)
  let total = 0
  for (let sample = 0; sample < count; sample++, at += stride) total += reader.u32be(at)
  return total
}
