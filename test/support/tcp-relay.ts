import type { Socket, TCPSocketListener } from 'bun'

/**
 * A TCP relay on loopback between the gateway and a server (PostgreSQL here) that a test can break the way networks
 * break: `cut()` closes every connection and refuses new ones (the database went away), `stall()` keeps connections
 * open but forwards nothing (a partition, a stalled server) until `resume()`; `restore()` listens again on the same
 * port.
 */
export interface TcpRelay {
  port: number
  cut(): void
  restore(): void
  stall(): void
  resume(): void
  stop(): void
}

interface Pair {
  client: Socket<Pair>
  server?: Socket<Pair>
  /** Bytes each way not yet forwarded (the server not connected yet, or the relay stalled). */
  toServer: Uint8Array[]
  toClient: Uint8Array[]
}

export async function startTcpRelay(target: { host: string; port: number }): Promise<TcpRelay> {
  const pairs = new Set<Pair>()
  let stalled = false
  let listener: TCPSocketListener<Pair> | undefined

  const forward = (pair: Pair) => {
    if (stalled) return
    if (pair.server) for (const chunk of pair.toServer.splice(0)) pair.server.write(chunk)
    for (const chunk of pair.toClient.splice(0)) pair.client.write(chunk)
  }
  const close = (pair: Pair) => {
    pairs.delete(pair)
    pair.client.end()
    pair.server?.end()
  }

  const listen = (port: number) =>
    Bun.listen<Pair>({
      hostname: '127.0.0.1',
      port,
      socket: {
        open(client) {
          const pair: Pair = { client, toServer: [], toClient: [] }
          client.data = pair
          pairs.add(pair)
          void Bun.connect<Pair>({
            hostname: target.host,
            port: target.port,
            socket: {
              open(server) {
                server.data = pair
                pair.server = server
                forward(pair)
              },
              data(_, chunk) {
                pair.toClient.push(new Uint8Array(chunk))
                forward(pair)
              },
              close: () => close(pair),
              error: () => close(pair),
            },
          }).catch(() => close(pair))
        },
        data(client, chunk) {
          client.data.toServer.push(new Uint8Array(chunk))
          forward(client.data)
        },
        close: (client) => close(client.data),
        error: (client) => close(client.data),
      },
    })

  listener = listen(0)
  const port = listener.port
  return {
    port,
    cut() {
      listener?.stop(true)
      listener = undefined
      for (const pair of [...pairs]) close(pair)
    },
    restore() {
      listener ??= listen(port)
    },
    stall() {
      stalled = true
    },
    resume() {
      stalled = false
      for (const pair of pairs) forward(pair)
    },
    stop() {
      listener?.stop(true)
      for (const pair of [...pairs]) close(pair)
    },
  }
}
