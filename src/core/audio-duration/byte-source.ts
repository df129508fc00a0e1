/**
 * The bytes of an audio file that the caller has so far: any number of ranges (usually the start, and perhaps the
 * end), and the file's total size when known. Parsers read through a ByteReader as if the whole file were there;
 * a read outside what was given stops the parse with MissingBytes, which readAudioDuration turns into a request
 * for exactly those bytes. So an upload can be measured from a prefix while it streams, or from a spooled file
 * with a few small reads, and an MP4 whose index sits after 60 MB of audio costs two reads, not 60 MB.
 */

export interface ByteRange {
  offset: number
  bytes: Uint8Array
}

export interface AudioBytes {
  /** The file's total length, when known (a Content-Length, a spooled file's size). */
  size: number | undefined
  ranges: readonly ByteRange[]
}

/** A parse reached bytes the caller has not given; asking for them and parsing again will get further. */
export class MissingBytes extends Error {
  constructor(
    readonly offset: number,
    readonly length: number,
  ) {
    super(`bytes ${offset} to ${offset + length} are needed`)
  }
}

/** A parse reached past the end of the file: the file is cut short or its header lies. */
export class FileEnds extends Error {
  constructor(readonly offset: number) {
    super(`the file ends before byte ${offset}`)
  }
}

export class ByteReader {
  readonly size: number | undefined
  private readonly ranges: ByteRange[]

  constructor(source: AudioBytes) {
    this.size = source.size
    this.ranges = mergeRanges(source.ranges)
  }

  /** `length` bytes at `offset` (a view, not a copy). */
  bytes(offset: number, length: number): Uint8Array {
    if (this.size !== undefined && offset + length > this.size) throw new FileEnds(offset + length)
    for (const range of this.ranges) {
      if (offset >= range.offset && offset + length <= range.offset + range.bytes.length) {
        return range.bytes.subarray(offset - range.offset, offset - range.offset + length)
      }
    }
    throw new MissingBytes(offset, length)
  }

  /** Whether all of `[offset, offset + length)` was given (for scans that use what is there). */
  has(offset: number, length: number): boolean {
    return this.ranges.some((range) => offset >= range.offset && offset + length <= range.offset + range.bytes.length)
  }

  u8(offset: number): number {
    return this.bytes(offset, 1)[0]!
  }

  u16be(offset: number): number {
    return viewOf(this.bytes(offset, 2)).getUint16(0)
  }

  u32be(offset: number): number {
    return viewOf(this.bytes(offset, 4)).getUint32(0)
  }

  u64be(offset: number): number {
    return Number(viewOf(this.bytes(offset, 8)).getBigUint64(0))
  }

  u16le(offset: number): number {
    return viewOf(this.bytes(offset, 2)).getUint16(0, true)
  }

  u32le(offset: number): number {
    return viewOf(this.bytes(offset, 4)).getUint32(0, true)
  }

  u64le(offset: number): number {
    return Number(viewOf(this.bytes(offset, 8)).getBigUint64(0, true))
  }

  text(offset: number, length: number): string {
    return String.fromCharCode(...this.bytes(offset, length))
  }
}

export function viewOf(bytes: Uint8Array): DataView {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
}

/** Overlapping or touching ranges become one, so a read across the seam of two reads still succeeds. */
function mergeRanges(ranges: readonly ByteRange[]): ByteRange[] {
  const sorted = [...ranges].filter((range) => range.bytes.length > 0).sort((left, right) => left.offset - right.offset)
  const merged: ByteRange[] = []
  for (const range of sorted) {
    const last = merged.at(-1)
    const lastEnd = last ? last.offset + last.bytes.length : -1
    if (!last || range.offset > lastEnd) {
      merged.push(range)
    } else if (range.offset + range.bytes.length > lastEnd) {
      const joined = new Uint8Array(range.offset + range.bytes.length - last.offset)
      joined.set(last.bytes)
      joined.set(range.bytes, range.offset - last.offset)
      merged[merged.length - 1] = { offset: last.offset, bytes: joined }
    }
  }
  return merged
}
