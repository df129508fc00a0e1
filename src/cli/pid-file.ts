import { existsSync, readFileSync, readlinkSync, realpathSync, unlinkSync, writeFileSync } from 'node:fs'
import { basename, resolve } from 'node:path'
import type { Config } from '../config/types.ts'

/**
 * Where a running `serve` writes its process id: beside its config file (`tollgate.yaml.pid`), or `./tollgate.pid`
 * when it runs on the built-in defaults. `reload` given the same `--config` finds the same file.
 */
export function pidFileOf(config: Config): string {
  return config.source.startsWith('(') ? 'tollgate.pid' : `${config.source}.pid`
}

/** Write this process's id, readable by its owner alone from the start (a file left by an older one is replaced). */
export function writePidFile(file: string): void {
  if (existsSync(file)) unlinkSync(file)
  writeFileSync(file, `${process.pid}\n`, { mode: 0o600, flag: 'wx' })
}

/** Remove the pid file on the way out, unless another serve of the same config has written its own since. */
export function removePidFile(file: string): void {
  try {
    if (readFileSync(file, 'utf8').trim() === String(process.pid)) unlinkSync(file)
  } catch {
    // Gone already, or never written (a read-only config folder): nothing to remove.
  }
}

/** The process id a pid file names, or undefined when there is none. */
export function readPidFile(file: string): number | undefined {
  const pid = existsSync(file) ? Number(readFileSync(file, 'utf8').trim()) : NaN
  return Number.isInteger(pid) && pid > 0 ? pid : undefined
}

/** This program inside a binary made by `bun build --compile` (its modules live in Bun's embedded file system). */
const compiled = Bun.main.startsWith('/$bunfs/') || Bun.main.includes('~BUN')

/**
 * Whether process `pid` is a `tollgate serve`, so that `reload` never signals whatever process a stale pid file names
 * (a pid is reused once its process is gone; SIGHUP ends most programs). Its command line must hold `serve` and run
 * this program: a binary named tollgate, this very binary, or this very script under bun.
 */
export function isTollgateServe(pid: number): boolean {
  const args = commandLineOf(pid)
  if (!args?.includes('serve')) return false
  if (basename(args[0] ?? '').startsWith('tollgate')) return true
  if (compiled) return linkOf(`/proc/${pid}/exe`)?.replace(/ \(deleted\)$/, '') === realpathSync(process.execPath)
  // `bun [flags] src/main.ts serve`: the script, resolved from that process's own folder, is this one.
  const script = args.slice(1).find((arg) => !arg.startsWith('-'))
  const folder = linkOf(`/proc/${pid}/cwd`) ?? process.cwd()
  return (
    script !== undefined && existsSync(resolve(folder, script)) && realpathSync(resolve(folder, script)) === realpathSync(process.argv[1]!)
  )
}

/** A process's arguments: /proc on Linux, `ps` elsewhere; undefined when there is no such process. */
function commandLineOf(pid: number): string[] | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean)
  } catch {
    if (existsSync('/proc/self')) return undefined
  }
  const listed = Bun.spawnSync(['ps', '-o', 'args=', '-p', String(pid)], { stdout: 'pipe', stderr: 'ignore' })
  const line = listed.exitCode === 0 ? listed.stdout.toString().trim() : ''
  return line ? line.split(/\s+/) : undefined
}

function linkOf(path: string): string | undefined {
  try {
    return readlinkSync(path)
  } catch {
    return undefined
  }
}
