/**
 * MPEG audio frame headers (MPEG-1, -2 and -2.5; layers I, II and III): the four bytes every frame starts with,
 * which give its bitrate, sample rate, samples per frame and length in bytes.
 */

export interface FrameHeader {
  /** 1 for MPEG-1, 2 for MPEG-2 and MPEG-2.5 (they share tables). */
  version: 1 | 2
  layer: 1 | 2 | 3
  /** Kilobits per second; 0 for "free format", whose rate is not in the header. */
  bitrate: number
  sampleRate: number
  samplesPerFrame: number
  /** Bytes from this header to the next (0 for free format). */
  frameLength: number
  mono: boolean
}

const bitrates: Record<string, number[]> = {
  '1-1': [0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448],
  '1-2': [0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384],
  '1-3': [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],
  '2-1': [0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256],
  '2-2': [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
  '2-3': [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
}
const sampleRates = [44_100, 48_000, 32_000]

/** The header at the start of `bytes` (4 bytes), or undefined when they are not a valid frame header. */
export function parseFrameHeader(bytes: Uint8Array): FrameHeader | undefined {
  const [first, second, third, fourth] = bytes as unknown as [number, number, number, number]
  if (first !== 0xff || (second & 0xe0) !== 0xe0) return undefined
  const versionBits = (second >> 3) & 3 // 0: MPEG-2.5, 1: reserved, 2: MPEG-2, 3: MPEG-1
  const layerBits = (second >> 1) & 3 // 1: III, 2: II, 3: I, 0: reserved
  const bitrateIndex = third >> 4
  const rateIndex = (third >> 2) & 3
  if (versionBits === 1 || layerBits === 0 || bitrateIndex === 15 || rateIndex === 3) return undefined
  const version = versionBits === 3 ? 1 : 2
  const layer = (4 - layerBits) as 1 | 2 | 3
  const bitrate = bitrates[`${version}-${layer}`]![bitrateIndex]!
  const sampleRate = sampleRates[rateIndex]! / (versionBits === 3 ? 1 : versionBits === 2 ? 2 : 4)
  const samplesPerFrame = layer === 1 ? 384 : layer === 3 && version === 2 ? 576 : 1152
  const padding = (third >> 1) & 1
  const slot = layer === 1 ? 4 : 1
  const frameLength = bitrate === 0 ? 0 : (Math.floor(((samplesPerFrame / 8 / slot) * bitrate * 1000) / sampleRate) + padding) * slot
  return { version, layer, bitrate, sampleRate, samplesPerFrame, frameLength, mono: fourth >> 6 === 3 }
}

/** Where a Xing/Info header would start: after the header and the layer III side information. */
export function xingOffset(header: FrameHeader): number {
  if (header.version === 1) return 4 + (header.mono ? 17 : 32)
  return 4 + (header.mono ? 9 : 17)
}
