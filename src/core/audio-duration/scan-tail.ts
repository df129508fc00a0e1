/**
 * Finding the last of something in a file whose header does not say where it is (a live WebM's last Cluster, a
 * fragmented MP4's last moof): scan the file's end backwards for its four-byte marker, and let the caller decide
 * whether each hit really is one. The last 256 KiB holds it in nearly every file; 4 MiB is the most ever read.
 */
import type { ByteReader } from './byte-source.ts'

const windows = [256 * 1024, 4 * 1024 * 1024]

/** The first answer `inspect` gives, trying hits of `marker` from the end; nothing before `from` is scanned. */
export function scanTail<T>(
  reader: ByteReader,
  from: number,
  marker: readonly number[],
  inspect: (offset: number) => T | undefined,
): T | undefined {
  const size = reader.size!
  if (from + marker.length > size) return undefined
  for (const window of windows) {
    const start = Math.max(from, size - window)
    const tail = reader.bytes(start, size - start)
    for (let at = tail.length - marker.length; at >= 0; at--) {
      if (marker.some((byte, index) => tail[at + index] !== byte)) continue
      const answer = inspect(start + at)
      if (answer !== undefined) return answer
    }
    if (start === from) break
  }
  return undefined
}
