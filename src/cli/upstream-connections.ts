/**
 * How many upstream requests the gateway's `fetch` runs at once. Bun runs at most BUN_CONFIG_MAX_HTTP_REQUESTS (256
 * when unset) and queues the rest out of sight: with 600 long streams the 257th waited seconds for its first byte, and
 * of 2,000 held-open streams most never began. Bun reads the variable once, as the process starts; setting it later
 * changes nothing (neither `process.env` nor libc's `setenv` before the first fetch, measured 2026-11-26).
 *
 * So `serve` (and the demo) replace themselves, before opening anything, with the same program, arguments and
 * environment plus the variable: `execve`, through bun:ffi. The process keeps its pid, so the pid file, systemd's
 * MAINPID, signals (SIGHUP reload, SIGTERM drain), the serve lock and the exit code are exactly as without it, and no
 * second process stays behind. Where that cannot be done, the process runs on with the ceiling it has and says so.
 */

export const ceilingVariable = 'BUN_CONFIG_MAX_HTTP_REQUESTS'
const bunDefault = 256
/** Set across the replacement: a process that still finds its ceiling wrong after one never tries again (no loop). */
const replacedMarker = 'TOLLGATE_UPSTREAM_CONNECTIONS_APPLIED'

/** The ceiling this process runs with: what Bun read from the variable at start, or its default. */
export function upstreamConnections(env: Record<string, string | undefined> = process.env): number {
  const value = env[ceilingVariable]
  const number = value === undefined ? Number.NaN : Number(value)
  return Number.isInteger(number) && number >= 1 && number <= 65_535 ? number : bunDefault
}

/**
 * Make this process run with `wanted` upstream requests at once. Returns undefined when it does already; otherwise
 * replaces the process and does not return — unless that failed, when it returns why (the process runs on as it is).
 */
export async function applyUpstreamConnections(wanted: number): Promise<string | undefined> {
  const env = process.env
  if (env[ceilingVariable] === String(wanted)) {
    delete env[replacedMarker]
    return undefined
  }
  if (env[replacedMarker]) return `${ceilingVariable} is ${env[ceilingVariable] ?? 'unset'} after restarting with it`
  try {
    await replaceProcess({ ...env, [ceilingVariable]: String(wanted), [replacedMarker]: '1' })
  } catch (error) {
    return (error as Error).message
  }
}

/** execve(2) this program with the same arguments and `env`: only returns by throwing. */
async function replaceProcess(env: Record<string, string | undefined>): Promise<never> {
  const { dlopen, FFIType, ptr } = await import('bun:ffi')
  const libc = dlopen(process.platform === 'darwin' ? 'libc.dylib' : 'libc.so.6', {
    execve: { args: [FFIType.ptr, FFIType.ptr, FFIType.ptr], returns: FFIType.i32 },
  })
  // A compiled binary carries its own runtime arguments (--compile-exec-argv) and its script; `bun src/main.ts` needs
  // both given again.
  const argv = Bun.isStandaloneExecutable
    ? [process.execPath, ...process.argv.slice(2)]
    : [process.execPath, ...process.execArgv, ...process.argv.slice(1)]
  const strings: Buffer[] = [] // kept referenced until execve has copied them
  const cString = (text: string) => {
    const buffer = Buffer.from(`${text}\0`)
    strings.push(buffer)
    return buffer
  }
  const table = (items: string[]) => {
    const pointers = new BigUint64Array(items.length + 1) // NULL-terminated
    items.forEach((item, index) => (pointers[index] = BigInt(ptr(cString(item)))))
    return pointers
  }
  const variables = Object.entries(env).flatMap(([name, value]) => (value === undefined ? [] : [`${name}=${value}`]))
  libc.symbols.execve(ptr(cString(process.execPath)), ptr(table(argv)), ptr(table(variables)))
  throw new Error(`could not restart ${process.execPath} with ${ceilingVariable} set`)
}
