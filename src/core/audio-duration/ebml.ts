/**
 * EBML, the binary markup WebM and Matroska are written in: each element is an ID and a size, both variable-length
 * integers whose first byte's leading zeros say how many bytes follow. IDs keep their length marker (Segment is
 * 0x18538067); sizes drop it, and a size of all ones means "unknown" (a live stream that could not seek back).
 */
import { viewOf, type ByteReader } from './byte-source.ts'

export interface Element {
  id: number
  /** Where the element's data starts. */
  data: number
  /** Undefined when the size is unknown. */
  size: number | undefined
}

export function readElement(reader: ByteReader, offset: number): Element {
  const id = readVint(reader, offset, 4, true)
  const size = readVint(reader, offset + id.length, 8, false)
  return { id: id.value, data: offset + id.length + size.length, size: size.unknown ? undefined : size.value }
}

function readVint(
  reader: ByteReader,
  offset: number,
  maxLength: number,
  keepMarker: boolean,
): { value: number; length: number; unknown: boolean } {
  const first = reader.u8(offset)
  const length = first === 0 ? 9 : Math.clz32(first) - 23
  if (length > maxLength) throw new EbmlError(`an EBML ${keepMarker ? 'ID' : 'size'} of ${length} bytes at byte ${offset}`)
  const bytes = reader.bytes(offset, length)
  let value = keepMarker ? first : first & (0xff >> length)
  let allOnes = value === 0xff >> length
  for (let index = 1; index < length; index++) {
    value = value * 256 + bytes[index]!
    allOnes &&= bytes[index] === 0xff
  }
  return { value, length, unknown: !keepMarker && allOnes }
}

/** An unsigned integer element's value (1 to 8 bytes, big-endian). */
export function readUnsigned(reader: ByteReader, element: Element): number {
  if (element.size === undefined || element.size > 8)
    throw new EbmlError(`an integer of ${element.size ?? 'unknown'} bytes at byte ${element.data}`)
  const bytes = reader.bytes(element.data, element.size ?? 0)
  return bytes.reduce((value, byte) => value * 256 + byte, 0)
}

/** A float element's value (4 or 8 bytes; 0 bytes reads as 0). */
export function readFloat(reader: ByteReader, element: Element): number {
  if (element.size !== 4 && element.size !== 8) return 0
  const view = viewOf(reader.bytes(element.data, element.size))
  return element.size === 4 ? view.getFloat32(0) : view.getFloat64(0)
}

export class EbmlError extends Error {}
