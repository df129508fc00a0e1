/**
 * What Bun reads from the environment once, as the process starts, and `serve` needs set otherwise than Bun's
 * defaults. Setting them later changes nothing (neither `process.env` nor libc's `setenv` before the first use,
 * measured 2026-11-26), so `serve` (and the demo) replace themselves, before opening anything, with the same program,
 * arguments and environment plus the variables: `execve`, through bun:ffi. The process keeps its pid, so the pid
 * file, systemd's MAINPID, signals (SIGHUP reload, SIGTERM drain), the serve lock and the exit code are exactly as
 * without it, and no second process stays behind. Where that cannot be done, the process runs on as it is and says so.
 *
 * - BUN_CONFIG_MAX_HTTP_REQUESTS: how many upstream requests the gateway's `fetch` runs at once. Bun runs at most 256
 *   when it is unset and queues the rest out of sight: with 600 long streams the 257th waited seconds for its first
 *   byte, and of 2,000 held-open streams most never began. Set to `limits.upstream_connections`.
 * - MIMALLOC_PURGE_DELAY: when Bun's allocator (mimalloc) gives freed memory back to the system. By default it does
 *   so ~0.1 s after the memory is freed, and Bun also asks it to at every collection: each time an `madvise` that, on
 *   a virtual machine, interrupts every core to flush its address translations. Under load that cost a streamed
 *   answer a quarter to a half of its CPU (bench/compare.ts and a saturated run, 2026-11-28, docs/capacity.md
 *   seventeenth round). `-1` keeps freed memory for reuse instead: the process stays at the size of its busiest
 *   moment, as a server sized for its peak would anyway. An operator's own value in the environment is kept.
 */

export const ceilingVariable = 'BUN_CONFIG_MAX_HTTP_REQUESTS'
const bunDefault = 256
const purgeDelayVariable = 'MIMALLOC_PURGE_DELAY'
/** Freed memory kept for reuse, never given back (see above). */
const keepFreedMemory = '-1'
/** Set across the replacement: a process that still finds its environment wrong after one never tries again (no loop). */
const replacedMarker = 'TOLLGATE_UPSTREAM_CONNECTIONS_APPLIED'

/** The ceiling this process runs with: what Bun read from the variable at start, or its default. */
export function upstreamConnections(env: Record<string, string | undefined> = process.env): number {
  const value = env[ceilingVariable]
  const number = value === undefined ? Number.NaN : Number(value)
  return Number.isInteger(number) && number >= 1 && number <= 65_535 ? number : bunDefault
}

/** How this process's allocator gives freed memory back: its MIMALLOC_PURGE_DELAY as Bun read it at start. */
export function memoryPurgeDelay(env: Record<string, string | undefined> = process.env): string {
  return env[purgeDelayVariable] ?? 'default'
}

/**
 * Make this process run with `wanted` upstream requests at once and freed memory kept for reuse (unless the
 * environment already says otherwise). Returns undefined when it does already; otherwise replaces the process and
 * does not return — unless that failed, when it returns why (the process runs on as it is).
 */
export async function applyLaunchEnvironment(wanted: number): Promise<string | undefined> {
  const env = process.env
  if (env[ceilingVariable] === String(wanted) && env[purgeDelayVariable] !== undefined) {
    delete env[replacedMarker]
    return undefined
  }
  if (env[replacedMarker]) return `${ceilingVariable} is ${env[ceilingVariable] ?? 'unset'} after restarting with it`
  try {
    await replaceProcess({
      ...env,
      [ceilingVariable]: String(wanted),
      [purgeDelayVariable]: env[purgeDelayVariable] ?? keepFreedMemory,
      [replacedMarker]: '1',
    })
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
  throw new Error(`could not restart ${process.execPath} with ${ceilingVariable} and ${purgeDelayVariable} set`)
}
