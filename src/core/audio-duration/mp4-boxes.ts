/** ISO base media boxes (MP4, M4A, MOV): a 32-bit size (1: a 64-bit size follows; 0: to the end) and a type. */
import type { ByteReader } from './byte-source.ts'
import { maxElements } from './result.ts'

export interface Box {
  type: string
  start: number
  /** Where the body starts (after the 8- or 16-byte header). */
  body: number
  end: number
}

/** The first box of `type` among the boxes from `start` to `end` (the file's end when undefined). */
export function findBox(reader: ByteReader, start: number, end: number | undefined, type: string): Box | undefined {
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
