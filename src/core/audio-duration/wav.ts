/**
 * WAV (RIFF, and RF64 for files past 4 GB): the `fmt ` chunk gives the byte rate, the `data` chunk's size the
 * amount of audio. Chunks are walked in order, since LIST/INFO and other chunks may sit before `data`. Compressed
 * WAV (ADPCM, GSM) carries a `fact` chunk with the sample count, which is exact where the byte rate is rounded.
 * A data size of 0 or 0xFFFFFFFF (written by a recorder that could not seek back) and sizes past the file's end are
 * replaced by what the file holds: the upstream can only hear the bytes that were sent.
 */
import type { ByteReader } from './byte-source.ts'
import { failure, maxElements, type Measurement } from './result.ts'

const pcmFormats = new Set([1, 3, 6, 7]) // PCM, IEEE float, A-law, µ-law: the byte rate is exact
const extensible = 0xfffe

export function measureWav(reader: ByteReader): Measurement {
  const rf64 = reader.text(0, 4) === 'RF64'
  let dataSize64: number | undefined
  let format: { tag: number; sampleRate: number; byteRate: number } | undefined
  let factSamples: number | undefined
  for (let offset = 12, count = 0; ; count++) {
    if (count === maxElements) return failure(`wav without a data chunk in its first ${maxElements} chunks`)
    if (reader.size !== undefined && offset + 8 > reader.size) return failure('wav without a data chunk')
    const id = reader.text(offset, 4)
    const size = reader.u32le(offset + 4)
    if (id === 'ds64') dataSize64 = reader.u64le(offset + 16)
    if (id === 'fmt ') {
      const tag = reader.u16le(offset + 8)
      // WAVE_FORMAT_EXTENSIBLE names the real format in the first two bytes of its sub-format GUID.
      const realTag = tag === extensible && size >= 40 ? reader.u16le(offset + 32) : tag
      format = { tag: realTag, sampleRate: reader.u32le(offset + 12), byteRate: reader.u32le(offset + 16) }
    }
    if (id === 'fact' && size >= 4) factSamples = reader.u32le(offset + 8)
    if (id === 'data') {
      if (!format) return failure('wav with its data chunk before the fmt chunk')
      const declared = rf64 && size === 0xffffffff && dataSize64 !== undefined ? dataSize64 : size
      return secondsOf(format, factSamples, dataBytes(reader, offset + 8, declared))
    }
    offset += 8 + size + (size % 2) // chunks are padded to an even length
  }
}

function dataBytes(reader: ByteReader, start: number, declared: number): number {
  if (reader.size === undefined) return declared
  const held = reader.size - start
  return declared === 0 || declared === 0xffffffff || declared > held ? held : declared
}

function secondsOf(
  format: { tag: number; sampleRate: number; byteRate: number },
  factSamples: number | undefined,
  bytes: number,
): Measurement {
  if (!pcmFormats.has(format.tag) && factSamples !== undefined && format.sampleRate > 0) return { seconds: factSamples / format.sampleRate }
  if (format.byteRate === 0) return failure('wav whose fmt chunk gives no byte rate')
  return { seconds: bytes / format.byteRate }
}
