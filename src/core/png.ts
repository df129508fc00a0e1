/**
 * A small valid PNG of one solid colour, derived from a seed: what the mock upstream answers for an image request,
 * so that clients which decode the image (the OpenAI SDK's users, the console) get a real picture, and the same
 * request gets the same picture. 8-bit RGB, no interlace; the pixel data is deflated by zlib (synchronous, no I/O).
 */
import { deflateSync } from 'node:zlib'

/** Larger images are a real upstream's job; this bounds the mock's memory (3 bytes a pixel before compression). */
export const maxPngSide = 4096

export type Rgb = [number, number, number]

const signature = Uint8Array.of(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)

/** A `width` × `height` PNG filled with the seed's colour. */
export function createPng(width: number, height: number, seed: string): Uint8Array {
  for (const side of [width, height]) {
    if (!Number.isInteger(side) || side < 1 || side > maxPngSide)
      throw new Error(`PNG sides are whole numbers from 1 to ${maxPngSide}, got ${side}`)
  }
  const header = new Uint8Array(13)
  const view = new DataView(header.buffer)
  view.setUint32(0, width)
  view.setUint32(4, height)
  header.set([8, 2, 0, 0, 0], 8) // 8 bits a sample, truecolour, deflate, adaptive filtering, no interlace
  return concat([
    signature,
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(scanlines(width, height, colourOf(seed)))),
    chunk('IEND', new Uint8Array(0)),
  ])
}

/** A colour from the seed's FNV-1a hash: any string gives a stable, well-spread colour. */
export function colourOf(seed: string): Rgb {
  let hash = 0x811c9dc5
  for (const byte of new TextEncoder().encode(seed)) hash = Math.imul(hash ^ byte, 0x01000193) >>> 0
  return [(hash >>> 16) & 0xff, (hash >>> 8) & 0xff, hash & 0xff]
}

/**
 * The first row is the colour repeated (filter 0: none); every later row is filter 2 ("up": each byte minus the
 * one above), all zeros. Zeros deflate in well under a millisecond for 1024 × 1024 at level 6, where raw rows
 * took ~6 ms at level 9 for the same size: the mock runs on the shared event loop.
 */
function scanlines(width: number, height: number, colour: Rgb): Uint8Array {
  const rowLength = 1 + width * 3
  const data = new Uint8Array(rowLength * height)
  for (let x = 0; x < width; x++) data.set(colour, 1 + x * 3)
  for (let y = 1; y < height; y++) data[y * rowLength] = 2
  return data
}

function chunk(type: string, data: Uint8Array): Uint8Array {
  const bytes = new Uint8Array(12 + data.length)
  const view = new DataView(bytes.buffer)
  view.setUint32(0, data.length)
  bytes.set(new TextEncoder().encode(type), 4)
  bytes.set(data, 8)
  view.setUint32(8 + data.length, crc32(bytes.subarray(4, 8 + data.length)))
  return bytes
}

const crcTable = Uint32Array.from({ length: 256 }, (_, index) => {
  let value = index
  for (let bit = 0; bit < 8; bit++) value = value & 1 ? 0xedb88320 ^ (value >>> 1) : value >>> 1
  return value
})

/** The CRC-32 PNG puts after each chunk (over its type and data). */
export function crc32(bytes: Uint8Array): number {
  let crc = 0xffffffff
  for (const byte of bytes) crc = crcTable[(crc ^ byte) & 0xff]! ^ (crc >>> 8)
  return (crc ^ 0xffffffff) >>> 0
}

function concat(parts: Uint8Array[]): Uint8Array {
  const bytes = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0))
  let offset = 0
  for (const part of parts) {
    bytes.set(part, offset)
    offset += part.length
  }
  return bytes
}
