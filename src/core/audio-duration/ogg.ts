/**
 * Ogg (Vorbis, Opus, FLAC): the first page's packet names the codec and its sample rate; the duration is the
 * granule position (samples) of the stream's last page, so the file's end is needed — a page is at most 65,307
 * bytes, so a tail of that length always holds the last page's start. Opus counts at 48 kHz and starts with
 * `pre-skip` samples that are not played. Candidate pages in the tail are checked by their CRC, so an `OggS` inside
 * compressed audio is not taken for a page.
 */
import { viewOf, type ByteReader } from './byte-source.ts'
import { readStreamInfo } from './flac.ts'
import { failure, type Measurement } from './result.ts'

const maxPageBytes = 27 + 255 + 255 * 255

export function measureOgg(reader: ByteReader): Measurement {
  const serial = reader.u32le(14)
  const packet = 27 + reader.u8(26) // the first page holds the identification packet alone
  const codec = codecOf(reader, packet)
  if ('failure' in codec) return codec
  if (reader.size === undefined) return failure('ogg whose length is not known: its duration is on its last page')
  for (const window of [maxPageBytes, 4 * maxPageBytes, 16 * maxPageBytes]) {
    const start = Math.max(0, reader.size - window)
    const granule = lastGranule(reader.bytes(start, reader.size - start), serial)
    if (granule !== undefined) return { seconds: Math.max(0, granule - codec.skip) / codec.rate }
    if (start === 0) break
  }
  return failure('ogg without a final granule position near its end')
}

function codecOf(reader: ByteReader, packet: number): { rate: number; skip: number } | { failure: string } {
  const magic = reader.text(packet, 8)
  if (magic === 'OpusHead') return { rate: 48_000, skip: reader.u16le(packet + 10) }
  if (magic.startsWith('\x01vorbis')) {
    const rate = reader.u32le(packet + 12)
    return rate > 0 ? { rate, skip: 0 } : failure('ogg vorbis whose header gives no sample rate')
  }
  if (magic.startsWith('\x7fFLAC')) {
    // 0x7F FLAC, version (2), header count (2), fLaC, a block header (4), then STREAMINFO; the granule counts samples.
    const { sampleRate } = readStreamInfo(reader, packet + 17)
    return sampleRate > 0 ? { rate: sampleRate, skip: 0 } : failure('ogg flac whose STREAMINFO gives no sample rate')
  }
  return failure('ogg with a codec other than Vorbis, Opus or FLAC')
}

/** The granule of the last complete page of `serial` in `bytes` whose granule is set (not -1). */
function lastGranule(bytes: Uint8Array, serial: number): number | undefined {
  const view = viewOf(bytes)
  for (let at = bytes.length - 27; at >= 0; at--) {
    if (bytes[at] !== 0x4f || view.getUint32(at) !== 0x4f676753 || bytes[at + 4] !== 0) continue // "OggS", version 0
    if (view.getUint32(at + 14, true) !== serial) continue
    const segments = bytes[at + 26]!
    if (at + 27 + segments > bytes.length) continue
    let length = 27 + segments
    for (let index = 0; index < segments; index++) length += bytes[at + 27 + index]!
    if (at + length > bytes.length || !hasValidCrc(bytes.subarray(at, at + length))) continue
    const granule = view.getBigInt64(at + 6, true)
    if (granule >= 0n) return Number(granule)
  }
  return undefined
}

const crcTable = Uint32Array.from({ length: 256 }, (_, index) => {
  let value = index << 24
  for (let bit = 0; bit < 8; bit++) value = value & 0x80000000 ? (value << 1) ^ 0x04c11db7 : value << 1
  return value >>> 0
})

/** Ogg's CRC-32 (polynomial 0x04C11DB7, not reflected) over the page with its CRC field read as zero. */
function hasValidCrc(page: Uint8Array): boolean {
  let crc = 0
  for (let index = 0; index < page.length; index++) {
    const byte = index >= 22 && index < 26 ? 0 : page[index]!
    crc = ((crc << 8) ^ crcTable[((crc >>> 24) ^ byte) & 0xff]!) >>> 0
  }
  return crc === viewOf(page).getUint32(22, true)
}
