/**
 * FLAC: the STREAMINFO block, which the format requires first, holds the sample rate and the total number of
 * samples. A total of 0 means the encoder did not know it (a live stream): the duration is then not in the header.
 */
import type { ByteReader } from './byte-source.ts'
import { failure, type Measurement } from './result.ts'

/** `start` is where `fLaC` begins (after any ID3v2 tag). */
export function measureFlac(reader: ByteReader, start: number): Measurement {
  if ((reader.u8(start + 4) & 0x7f) !== 0) return failure('flac whose first metadata block is not STREAMINFO')
  const { sampleRate, totalSamples } = readStreamInfo(reader, start + 8)
  if (sampleRate === 0) return failure('flac whose STREAMINFO gives no sample rate')
  if (totalSamples === 0) return failure("flac without a sample count (a live stream's header does not know it)")
  return { seconds: totalSamples / sampleRate }
}

/** Sample rate (20 bits) and total samples (36 bits) sit 10 bytes into the 34-byte STREAMINFO body. */
export function readStreamInfo(reader: ByteReader, body: number): { sampleRate: number; totalSamples: number } {
  const bytes = reader.bytes(body + 10, 8)
  return {
    sampleRate: (bytes[0]! << 12) | (bytes[1]! << 4) | (bytes[2]! >> 4),
    totalSamples: (bytes[3]! & 0x0f) * 2 ** 32 + ((bytes[4]! << 24) >>> 0) + (bytes[5]! << 16) + (bytes[6]! << 8) + bytes[7]!,
  }
}
