import { dlopen, FFIType } from 'bun:ffi'
import { readdirSync, readFileSync, readlinkSync } from 'node:fs'
import type { Logger } from '../core/logger.ts'

/**
 * Bun.serve listens with a backlog of 512 whatever it is asked (its `backlog` option is not passed on; oven-sh/bun
 * PR 33786). A burst of more new connections than that — 2,000 streaming clients opening at once — fills the accept
 * queue while the event loop is busy, and the kernel drops the rest of the SYNs: those clients retry one second later
 * (`nstat` counts them as ListenOverflows), which is the p99 of such a burst. Calling listen(2) again on the listening
 * socket sets a deeper queue, as deep as the kernel allows (net.core.somaxconn, 4096 on current kernels): found in
 * /proc by its port, called through libc. Linux only; elsewhere, or if any step fails, Bun's 512 stays.
 *
 * Returns the backlog set, or undefined when it was left as it was.
 */
export function deepenListenBacklog(port: number, logger?: Logger): number | undefined {
  if (process.platform !== 'linux') return undefined
  try {
    const backlog = Number(readFileSync('/proc/sys/net/core/somaxconn', 'utf8').trim()) || 4096
    if (backlog <= 512) return undefined
    const sockets = listeningSockets(port)
    let deepened = false
    const libc = dlopen('libc.so.6', { listen: { args: [FFIType.i32, FFIType.i32], returns: FFIType.i32 } })
    try {
      for (const fd of readdirSync('/proc/self/fd')) {
        const inode = socketInode(fd)
        if (inode !== undefined && sockets.has(inode) && libc.symbols.listen(Number(fd), backlog) === 0) deepened = true
      }
    } finally {
      libc.close()
    }
    return deepened ? backlog : undefined
  } catch (error) {
    logger?.info({ err: String(error) }, "the listen backlog could not be deepened: Bun's 512 stays")
    return undefined
  }
}

/** The inodes of the sockets listening on `port` (TCP over IPv4 and IPv6; state 0A is LISTEN). */
function listeningSockets(port: number): Set<string> {
  const inodes = new Set<string>()
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string
    try {
      text = readFileSync(table, 'utf8')
    } catch {
      continue
    }
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/)
      if (fields.length < 10 || fields[3] !== '0A') continue
      if (Number.parseInt(fields[1]!.slice(fields[1]!.lastIndexOf(':') + 1), 16) === port) inodes.add(fields[9]!)
    }
  }
  return inodes
}

/** The socket inode behind one of this process's file descriptors, if it is a socket. */
function socketInode(fd: string): string | undefined {
  try {
    return /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/self/fd/${fd}`))?.[1]
  } catch {
    return undefined
  }
}
