import { dlopen, FFIType, ptr } from 'bun:ffi'

/**
 * A loopback port where TCP connects hang, like a host that drops packets: a socket listening with a backlog of 0
 * that never accepts, with its one queue slot taken, so the kernel drops every further SYN. Node and Bun servers
 * always accept, hence libc through FFI. Linux only (`available` is false elsewhere).
 */
export interface StalledListener {
  port: number
  close(): void
}

export const stalledListenerAvailable = process.platform === 'linux'

export async function startStalledListener(): Promise<StalledListener> {
  const libc = dlopen('libc.so.6', {
    socket: { args: [FFIType.i32, FFIType.i32, FFIType.i32], returns: FFIType.i32 },
    bind: { args: [FFIType.i32, FFIType.ptr, FFIType.u32], returns: FFIType.i32 },
    listen: { args: [FFIType.i32, FFIType.i32], returns: FFIType.i32 },
    getsockname: { args: [FFIType.i32, FFIType.ptr, FFIType.ptr], returns: FFIType.i32 },
    close: { args: [FFIType.i32], returns: FFIType.i32 },
  })
  const AF_INET = 2
  const SOCK_STREAM = 1
  const fd = libc.symbols.socket(AF_INET, SOCK_STREAM, 0)
  // struct sockaddr_in for 127.0.0.1, port 0 (the kernel picks one).
  const address = new Uint8Array(16)
  address[0] = AF_INET
  address.set([127, 0, 0, 1], 4)
  if (libc.symbols.bind(fd, ptr(address), 16) !== 0 || libc.symbols.listen(fd, 0) !== 0) throw new Error('could not listen')
  const length = new Uint32Array([16])
  libc.symbols.getsockname(fd, ptr(address), ptr(length))
  const port = (address[2]! << 8) | address[3]!
  // Take the one queue slot: from now on connects to this port hang.
  const filler = await Bun.connect({ hostname: '127.0.0.1', port, socket: { data() {} } })
  return {
    port,
    close() {
      filler.end()
      libc.symbols.close(fd)
      libc.close()
    },
  }
}
