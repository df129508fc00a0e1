/**
 * Which container a file is, from its first bytes (its "magic"), after any ID3v2 tags: MP3 files, and some FLAC
 * files, start with one, and a tag with cover art can run to megabytes.
 */
import type { ByteReader } from './byte-source.ts'
import { parseFrameHeader } from './mp3-frame.ts'
import { leadingBoxes } from './mp4.ts'
import { maxElements, type AudioFormat } from './result.ts'

/** The offset after the ID3v2 tags at the start of the file (0 when there are none). */
export function afterId3Tags(reader: ByteReader): number {
  let offset = 0
  for (let count = 0; count < maxElements && available(reader, offset) >= 10 && reader.text(offset, 3) === 'ID3'; count++) {
    const bytes = reader.bytes(offset, 10)
    // The size is "synchsafe": 7 bits a byte. A footer (flag 0x10) adds another 10 bytes.
    const size = (bytes[6]! << 21) | (bytes[7]! << 14) | (bytes[8]! << 7) | bytes[9]!
    offset += 10 + size + (bytes[5]! & 0x10 ? 10 : 0)
  }
  return offset
}

/** `webm` stands for any EBML file here; the DocType decides between WebM and Matroska later. */
export function detectFormat(reader: ByteReader, start: number): AudioFormat | undefined {
  const length = Math.min(12, available(reader, start))
  if (length < 4) return start > 0 ? 'mp3' : undefined
  const magic = reader.text(start, length)
  if ((magic.startsWith('RIFF') || magic.startsWith('RF64')) && magic.slice(8, 12) === 'WAVE') return 'wav'
  if (magic.startsWith('fLaC')) return 'flac'
  if (magic.startsWith('OggS')) return 'ogg'
  if (magic.startsWith('\x1a\x45\xdf\xa3')) return 'webm'
  if (start === 0 && leadingBoxes.has(magic.slice(4, 8))) return 'mp4'
  if (parseFrameHeader(reader.bytes(start, 4))) return 'mp3'
  // Behind an ID3 tag there is MP3 even when junk comes before the first frame.
  return start > 0 ? 'mp3' : undefined
}

/** How many bytes there are from `offset`: up to the end of the file, or at least 12 to look at. */
function available(reader: ByteReader, offset: number): number {
  return reader.size === undefined ? 12 : Math.max(0, reader.size - offset)
}
