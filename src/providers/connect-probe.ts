/**
 * Can a TCP connection to the upstream's host be opened within `timeoutMs`?
 *
 * Why this exists: `fetch` reports no "connected" moment, so a host that drops our packets looks exactly like a
 * model thinking hard until the first-byte timer (minutes, for a non-streamed answer) runs out. When a request has
 * had no answer for `connect_ms`, one side connection to the same host:port tells the two apart cheaply: a live host
 * accepts it at once. Probes are shared per origin for a second, so a burst of slow requests costs one connection.
 */
const recent = new Map<string, { at: number; reachable: Promise<boolean> }>()

export function probeConnect(url: URL, timeoutMs: number): Promise<boolean> {
  const port = Number(url.port) || (url.protocol === 'https:' ? 443 : 80)
  const origin = `${url.hostname}:${port}`
  const cached = recent.get(origin)
  if (cached && Date.now() - cached.at < 1000) return cached.reachable
  const reachable = new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), timeoutMs)
    const settle = (value: boolean) => {
      clearTimeout(timer)
      resolve(value)
    }
    Bun.connect({
      hostname: url.hostname.replace(/^\[|\]$/g, ''),
      port,
      socket: {
        // Opened, even after we stopped waiting: close it straight away, it has served its purpose.
        open(socket) {
          socket.end()
          settle(true)
        },
        data() {},
        connectError: () => settle(false),
      },
    }).catch(() => settle(false))
  })
  recent.set(origin, { at: Date.now(), reachable })
  if (recent.size > 1000) recent.delete(recent.keys().next().value!)
  return reachable
}

/** Through a proxy, the host we would probe is not the hop fetch connects to: no probe then. */
function usesProxy(env: Record<string, string | undefined> = process.env): boolean {
  return ['HTTP_PROXY', 'HTTPS_PROXY', 'ALL_PROXY', 'http_proxy', 'https_proxy', 'all_proxy'].some((name) => Boolean(env[name]))
}

/** Read once: the environment does not change while serving, and reading it costs on every request. */
export const proxied = usesProxy()
