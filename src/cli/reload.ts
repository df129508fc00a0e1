import type { Config } from '../config/types.ts'
import { isTollgateServe, pidFileOf, readPidFile } from './pid-file.ts'

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
    console.error(`no running "tollgate serve" with process id ${pid} (from ${file}): that process is gone or is not a tollgate serve; nothing was signalled`)
    return 1
  }
  try {
    process.kill(pid, 'SIGHUP')
  } catch {
    console.error(`no running "tollgate serve" with process id ${pid} (from ${file})`)
    return 1
  }
  console.log(json ? JSON.stringify({ reloaded: true, pid }) : `asked tollgate serve (pid ${pid}) to reload ${config.source}; its log says whether it did`)
  return 0
}
