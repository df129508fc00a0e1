import type { Database } from 'bun:sqlite'
import type { CheckpointStart } from './checkpoint-worker.ts'

export interface Checkpointer {
  /** Checkpoint once more, close the thread's connection and end the thread. */
  stop(): Promise<void>
}

/**
 * Move a SQLite file's WAL checkpoints off the calling thread. SQLite checkpoints inside whichever commit takes the
 * WAL past 1000 pages, and on a busy gateway that is the main thread committing a batch of usage rows: every half
 * second or so it copied pages back into the database and synced, for ~5% of req/s and most of the p99 (20–45 ms
 * against ~11 ms without, bench/run.ts at 0 ms upstream delay, 2026-11-23). Here `client` never checkpoints by
 * itself (wal_autocheckpoint = 0) and a worker thread checkpoints every `intervalMs`.
 *
 * For long-running servers only: a CLI command keeps SQLite's own checkpoints, and a thread would outlive its work.
 */
export function startCheckpointer(client: Database, path: string, intervalMs = 250): Checkpointer {
  const worker = new Worker(workerUrl(), { name: 'tollgate-checkpoint' })
  // The thread must not keep a process alive that has nothing else to do.
  ;(worker as Worker & { unref(): void }).unref()
  worker.postMessage({ path, intervalMs } satisfies CheckpointStart)
  client.exec('PRAGMA wal_autocheckpoint = 0')
  // A thread that fails (its code missing from a build, say) must not leave the WAL to grow without end.
  worker.addEventListener('error', () => client.exec('PRAGMA wal_autocheckpoint = 1000'), { once: true })
  let stopping: Promise<void> | undefined
  return {
    stop() {
      stopping ??= new Promise<void>((resolve) => {
        const done = () => {
          worker.terminate()
          resolve()
        }
        worker.addEventListener('message', done, { once: true })
        worker.addEventListener('error', done, { once: true })
        worker.postMessage('stop')
      }).finally(() => client.exec('PRAGMA wal_autocheckpoint = 1000'))
      return stopping
    },
  }
}

/**
 * Where the worker's code is. From source, next to this file. In the executable `bun run build` makes, every bundled
 * module's import.meta.url is the executable's own (file:///$bunfs/root/tollgate), and the worker, built as an
 * entrypoint of its own, is stored at its path under src/ (the common folder of the build's entrypoints).
 */
function workerUrl(): URL {
  const fromSource = import.meta.url.endsWith('/checkpointer.ts')
  return new URL(fromSource ? './checkpoint-worker.ts' : './db/sqlite/checkpoint-worker.ts', import.meta.url)
}
