import { readdir, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Logger } from '../core/logger.ts'

/**
 * Uploads spooled to the system's temp folder while a request is read (a transcription's audio, an image edit's
 * images) are named after the process that owns them, `tollgate-<kind>-<pid>-…`. A request removes its own when it
 * ends; a process that crashed cannot, so each start removes what processes no longer running left behind — and
 * leaves alone what another instance still running on the machine is using.
 */
export type UploadKind = 'audio-upload' | 'edit'

/** The path prefix of this process's temporary uploads of `kind` (a unique suffix is added by the caller). */
export function uploadSpoolPrefix(kind: UploadKind): string {
  return join(tmpdir(), `tollgate-${kind}-${process.pid}-`)
}

const owned = /^tollgate-(?:audio-upload|edit)-(\d+)-/
/** Names from before uploads carried their owner (`tollgate-audio-upload-<uuid>`, `tollgate-edit-XXXXXX`). */
const ownerless = /^tollgate-(?:audio-upload-[0-9a-f]{8}-|edit-[A-Za-z0-9]{6}$)/
/** An ownerless entry this old cannot belong to a request still being read. */
const ownerlessAgeMs = 24 * 60 * 60 * 1000

/** Remove the temporary uploads of processes no longer running from `directory`; returns how many were removed. */
export async function sweepOrphanedUploads(directory = tmpdir(), logger?: Logger): Promise<number> {
  let names: string[]
  try {
    names = await readdir(directory)
  } catch {
    return 0 // no temp folder to read: nothing of ours is in it
  }
  let removed = 0
  for (const name of names) {
    if (!(await orphaned(directory, name))) continue
    await rm(join(directory, name), { recursive: true, force: true }).then(
      () => removed++,
      (error: unknown) =>
        logger?.warn({ err: String(error), path: join(directory, name) }, 'a temporary upload left by a crash could not be removed'),
    )
  }
  if (removed > 0) logger?.info({ removed, directory }, 'removed temporary uploads left by processes no longer running')
  return removed
}

async function orphaned(directory: string, name: string): Promise<boolean> {
  const owner = owned.exec(name)
  if (owner) return Number(owner[1]) !== process.pid && !running(Number(owner[1]))
  if (!ownerless.test(name)) return false
  const modified = await stat(join(directory, name)).then(
    (entry) => entry.mtimeMs,
    () => Date.now(),
  )
  return Date.now() - modified > ownerlessAgeMs
}

/** Whether a process with this id is running (signal 0 checks without sending; EPERM: it runs as another user). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}
