/**
 * The length of a live WebM/Matroska recording, which has no Duration: the timestamp of the last block of the last
 * Cluster, plus one block's length (the gap between the last two blocks), since a timestamp marks a block's start.
 * Clusters are found by scanning the file's end for the Cluster ID; a candidate counts only if it parses as a
 * cluster (a Timecode, then blocks) with at least one block, so the ID turning up inside audio data is not taken.
 */
import { FileEnds, type ByteReader } from './byte-source.ts'
import { EbmlError, readElement, readUnsigned } from './ebml.ts'
import { maxElements } from './result.ts'
import { scanTail } from './scan-tail.ts'

const clusterId = [0x1f, 0x43, 0xb6, 0x75]
const timecode = 0xe7
const simpleBlock = 0xa3
const blockGroup = 0xa0
const block = 0xa1
/** Elements that may sit in a cluster besides blocks: Void, CRC-32, Position, PrevSize, SilentTracks. */
const otherClusterChildren = new Set([0xec, 0xbf, 0xa7, 0xab, 0x5854])

/** In TimecodeScale units; undefined when no cluster is found near the file's end. */
export function lastBlockTime(reader: ByteReader, segmentData: number): number | undefined {
  return scanTail(reader, segmentData, clusterId, (offset) => clusterEndTime(reader, offset))
}

function clusterEndTime(reader: ByteReader, offset: number): number | undefined {
  try {
    const cluster = readElement(reader, offset)
    const end = cluster.size === undefined ? reader.size! : Math.min(reader.size!, cluster.data + cluster.size)
    const first = readElement(reader, cluster.data)
    if (first.id !== timecode || first.size === undefined || first.size > 8) return undefined
    const base = readUnsigned(reader, first)
    const times: number[] = []
    for (let at = first.data + first.size; at < end && times.length < maxElements; ) {
      const child = readElement(reader, at)
      if (child.size === undefined || child.data + child.size > end) break
      if (child.id === simpleBlock) times.push(base + blockTimestamp(reader, child.data))
      else if (child.id === blockGroup) {
        const inner = readElement(reader, child.data)
        if (inner.id === block) times.push(base + blockTimestamp(reader, inner.data))
      } else if (!otherClusterChildren.has(child.id)) break // the next Cluster or Cues after an unknown-size one
      at = child.data + child.size
    }
    if (times.length === 0) return undefined
    const last = Math.max(...times)
    const gaps = times
      .slice(1)
      .map((time, index) => time - times[index]!)
      .filter((gap) => gap > 0)
    return last + (gaps.at(-1) ?? 0)
  } catch (error) {
    if (error instanceof EbmlError || error instanceof FileEnds) return undefined // not a cluster after all
    throw error
  }
}

/** A block starts with its track number (a variable-length integer) and a signed 16-bit relative timestamp. */
function blockTimestamp(reader: ByteReader, data: number): number {
  const trackLength = Math.clz32(reader.u8(data)) - 23
  const relative = reader.u16be(data + trackLength)
  return relative >= 0x8000 ? relative - 0x10000 : relative
}
