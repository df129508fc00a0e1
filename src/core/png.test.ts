import { describe, expect, test } from 'bun:test'
import { inflateSync } from 'node:zlib'
import { colourOf, createPng, crc32, maxPngSide } from './png.ts'

interface Chunk {
  type: string
  data: Uint8Array
}

/** A PNG reader independent of png.ts: Bun's CRC-32, node's inflate. */
function readPng(bytes: Uint8Array): { chunks: Chunk[]; width: number; height: number; pixels: Uint8Array } {
  expect(Array.from(bytes.subarray(0, 8))).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const chunks: Chunk[] = []
  for (let offset = 8; offset < bytes.length; ) {
    const length = view.getUint32(offset)
    const type = new TextDecoder().decode(bytes.subarray(offset + 4, offset + 8))
    const data = bytes.subarray(offset + 8, offset + 8 + length)
    expect(view.getUint32(offset + 8 + length)).toBe(Bun.hash.crc32(bytes.subarray(offset + 4, offset + 8 + length)))
    chunks.push({ type, data })
    offset += 12 + length
  }
  const header = new DataView(chunks[0]!.data.buffer, chunks[0]!.data.byteOffset, 13)
  const idat = Buffer.concat(chunks.filter((chunk) => chunk.type === 'IDAT').map((chunk) => chunk.data))
  const width = header.getUint32(0)
  const height = header.getUint32(4)
  return { chunks, width, height, pixels: unfilter(inflateSync(idat), width * 3, height) }
}

/** RGB rows without their filter bytes, for the filters png.ts writes (0: none, 2: up). */
function unfilter(data: Uint8Array, rowBytes: number, height: number): Uint8Array {
  const pixels = new Uint8Array(rowBytes * height)
  expect(data.length).toBe((rowBytes + 1) * height)
  for (let y = 0; y < height; y++) {
    const filter = data[y * (rowBytes + 1)]
    expect([0, 2]).toContain(filter!)
    for (let x = 0; x < rowBytes; x++) {
      const above = filter === 2 && y > 0 ? pixels[(y - 1) * rowBytes + x]! : 0
      pixels[y * rowBytes + x] = (data[y * (rowBytes + 1) + 1 + x]! + above) & 0xff
    }
  }
  return pixels
}

describe('tiny PNG', () => {
  test('signature, IHDR, IDAT and IEND in order, every CRC right', () => {
    const { chunks, width, height } = readPng(createPng(3, 2, 'seed'))
    expect(chunks.map((chunk) => chunk.type)).toEqual(['IHDR', 'IDAT', 'IEND'])
    expect([width, height]).toEqual([3, 2])
    expect(Array.from(chunks[0]!.data.subarray(8))).toEqual([8, 2, 0, 0, 0])
    expect(chunks[2]!.data.length).toBe(0)
  })

  test('every pixel is the seed colour', () => {
    const colour = colourOf('a cat in a hat')
    const { pixels } = readPng(createPng(5, 4, 'a cat in a hat'))
    expect(pixels.length).toBe(4 * 5 * 3)
    for (let pixel = 0; pixel < 20; pixel++) expect(Array.from(pixels.subarray(pixel * 3, pixel * 3 + 3))).toEqual(colour)
  })

  test('deterministic per seed; seeds give different colours', () => {
    expect(createPng(8, 8, 'x')).toEqual(createPng(8, 8, 'x'))
    expect(colourOf('x')).not.toEqual(colourOf('y'))
    expect(colourOf('')).toEqual([0x1c, 0x9d, 0xc5]) // the low bytes of FNV-1a's offset basis
  })

  test('a 1024 × 1024 image stays small', () => {
    const png = createPng(1024, 1024, 'big')
    expect(png.length).toBeLessThan(10_000)
    const { pixels } = readPng(png)
    expect(pixels.length).toBe(1024 * 1024 * 3)
    expect(Array.from(pixels.subarray(-3))).toEqual(colourOf('big'))
  })

  test('CRC-32 is the standard one', () => {
    expect(crc32(new TextEncoder().encode('123456789'))).toBe(0xcbf43926)
    expect(crc32(new TextEncoder().encode('IEND'))).toBe(0xae426082)
  })

  test('sides out of range are refused with the value', () => {
    expect(() => createPng(0, 1, 's')).toThrow(`PNG sides are whole numbers from 1 to ${maxPngSide}, got 0`)
    expect(() => createPng(1, maxPngSide + 1, 's')).toThrow(`got ${maxPngSide + 1}`)
    expect(() => createPng(1.5, 1, 's')).toThrow('got 1.5')
  })
})
