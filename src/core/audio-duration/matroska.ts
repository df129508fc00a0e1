/**
 * WebM and Matroska: the Segment's Info element holds Duration (a float, in TimecodeScale units of nanoseconds,
 * 1 ms unless set). Info usually comes first; when Clusters come before it, the SeekHead says where it is. A live
 * recording (a browser's MediaRecorder, `-live 1`) has no Duration at all: its length is then the time of the last
 * block in the last Cluster, read from the file's end (live-duration.ts).
 */
import type { ByteReader } from './byte-source.ts'
import { readElement, readFloat, readUnsigned, type Element } from './ebml.ts'
import { lastBlockTime } from './live-duration.ts'
import { failure, maxElements, type Measurement } from './result.ts'

export const ids = {
  ebml: 0x1a45dfa3,
  docType: 0x4282,
  segment: 0x18538067,
  seekHead: 0x114d9b74,
  seek: 0x4dbb,
  seekId: 0x53ab,
  seekPosition: 0x53ac,
  info: 0x1549a966,
  timecodeScale: 0x2ad7b1,
  duration: 0x4489,
  cluster: 0x1f43b675,
}

export function measureMatroska(reader: ByteReader): { format: 'webm' | 'matroska'; measurement: Measurement } {
  const header = readElement(reader, 0)
  const headerEnd = header.data + (header.size ?? 0)
  const docType = childrenOf(reader, header.data, headerEnd).find((child) => child.id === ids.docType)
  const format = docType?.size === 4 && reader.text(docType.data, 4) === 'webm' ? 'webm' : 'matroska'
  return { format, measurement: measureSegment(reader, headerEnd, format) }
}

function measureSegment(reader: ByteReader, offset: number, format: string): Measurement {
  const segment = readElement(reader, offset)
  if (segment.id !== ids.segment) return failure(`${format} without a Segment after its header`)
  const end = segment.size === undefined ? reader.size : segment.data + segment.size
  let infoAt: number | undefined
  for (let at = segment.data, count = 0; (end === undefined || at < end) && count < maxElements; count++) {
    const element = readElement(reader, at)
    if (element.id === ids.info) return measureInfo(reader, element, segment.data, format)
    if (element.id === ids.seekHead) infoAt = infoPosition(reader, element, segment.data)
    if (element.id === ids.cluster || element.size === undefined) {
      if (infoAt !== undefined) return measureInfo(reader, readElement(reader, infoAt), segment.data, format)
      return failure(`${format} without segment information before its first cluster`)
    }
    at = element.data + element.size
  }
  return failure(`${format} without segment information`)
}

function measureInfo(reader: ByteReader, info: Element, segmentData: number, format: string): Measurement {
  if (info.id !== ids.info) return failure(`${format} whose SeekHead points at no segment information`)
  let scale = 1_000_000
  let duration: number | undefined
  for (const child of childrenOf(reader, info.data, info.data + (info.size ?? 0))) {
    if (child.id === ids.timecodeScale) scale = readUnsigned(reader, child)
    if (child.id === ids.duration) duration = readFloat(reader, child)
  }
  if (duration !== undefined && duration > 0 && Number.isFinite(duration)) return { seconds: (duration * scale) / 1e9 }
  if (reader.size === undefined) return failure(`${format} without a duration (a live recording), whose length is not known`)
  const last = lastBlockTime(reader, segmentData)
  if (last === undefined) return failure(`${format} without a duration, and no cluster found near its end`)
  return { seconds: (last * scale) / 1e9 }
}

/** Where the SeekHead says Info is, as a file offset (positions count from the Segment's data). */
function infoPosition(reader: ByteReader, seekHead: Element, segmentData: number): number | undefined {
  for (const seek of childrenOf(reader, seekHead.data, seekHead.data + (seekHead.size ?? 0))) {
    if (seek.id !== ids.seek) continue
    const fields = childrenOf(reader, seek.data, seek.data + (seek.size ?? 0))
    const id = fields.find((field) => field.id === ids.seekId)
    const position = fields.find((field) => field.id === ids.seekPosition)
    if (id && position && readUnsigned(reader, id) === ids.info) return segmentData + readUnsigned(reader, position)
  }
  return undefined
}

/** The elements inside `[start, end)` (master elements with known sizes only). */
function childrenOf(reader: ByteReader, start: number, end: number): Element[] {
  const children: Element[] = []
  for (let at = start; at < end && children.length < maxElements; ) {
    const child = readElement(reader, at)
    if (child.size === undefined) break
    children.push(child)
    at = child.data + child.size
  }
  return children
}
