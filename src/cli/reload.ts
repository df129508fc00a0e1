import { readFileSync, unlinkSync, writeFileSync } from 'node:fs'
import type { Config } from '../config/types.ts'
import { osUser } from './actor.ts'
import { isTollgateServe, pidFileOf, readPidFile } from './pid-file.ts'

/** A signal says nothing of who sent it: `reload` leaves its OS user here for the audit log's row, and serve takes it. */
const requesterFileOf = (pidFile: string) => `${pidFile}.reload`
/** A note older than this is not about the signal serve just got (a `reload` that failed to signal left it). */
const requestFreshMs = 30_000

/** Who asked for the reload serve is applying: the OS user `tollgate reload` ran as, or undefined (another sender). */
export function takeReloadRequester(pidFile: string, now = Date.now()): string | undefined {
  const file = requesterFileOf(pidFile)
  try {
    const note = JSON.parse(readFileSync(file, 'utf8')) as { by?: unknown; at?: unknown }
    unlinkSync(file)
    return typeof note.by === 'string' && typeof note.at === 'number' && now - note.at < requestFreshMs ? note.by : undefined
  } catch {
    return undefined // none, or unreadable: the row names the signal instead
  }
}

/** `tollgate reload`: ask the running `serve` of this config to re-read it (SIGHUP). */
export function runReloadCommand(config: Config, json: boolean): number {
  const file = pidFileOf(config)
  const pid = readPidFile(file)
  if (pid === undefined) {
    console.error(`no running "tollgate serve" found for ${config.source}: ${file} is missing`)
    return 1
  }
  // A pid file a crash left behind may name a process that has nothing to do with us: never signal that one.
  if (!isTollgateServe(pid)) {
    console.error(
      `no running "tollgate serve" with process id ${pid} (from ${file}): that process is gone or is not a tollgate serve; nothing was signalled`,
    )
    return 1
  }
  try {
    // Readable by its owner only, like the pid file; where it cannot be written the audit row names the signal.
    writeFileSync(requesterFileOf(file), JSON.stringify({ by: osUser(), at: Date.now() }), { mode: 0o600 })
  } catch {}
  try {
    process.kill(pid, 'SIGHUP')
  } catch {
    console.error(`no running "tollgate serve" with process id ${pid} (from ${file})`)
    return 1
  }
  console.log(
    json
      ? JSON.stringify({ reloaded: true, pid })
      : `asked tollgate serve (pid ${pid}) to reload ${config.source}; its log says whether it did`,
  )
  return 0
}
