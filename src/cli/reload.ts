import { existsSync, readFileSync } from 'node:fs'
import type { Config } from '../config/types.ts'

/**
 * Where a running `serve` writes its process id: beside its config file (`tollgate.yaml.pid`), or `./tollgate.pid`
 * when it runs on the built-in defaults. `reload` given the same `--config` finds the same file.
 */
export function pidFileOf(config: Config): string {
  return config.source.startsWith('(') ? 'tollgate.pid' : `${config.source}.pid`
}

/** `tollgate reload`: ask the running `serve` of this config to re-read it (SIGHUP). */
export function runReloadCommand(config: Config, json: boolean): number {
  const file = pidFileOf(config)
  const pid = existsSync(file) ? Number(readFileSync(file, 'utf8').trim()) : NaN
  if (!Number.isInteger(pid) || pid <= 0) {
    console.error(`no running "tollgate serve" found for ${config.source}: ${file} is missing`)
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
