import { RedisClient } from 'bun'

/** A redis-server of the test's own, on a free loopback port, that the test can kill and start again. */
export interface TestRedis {
  url: string
  port: number
  /** SIGKILL: Redis vanishes as from a crash. */
  kill(): Promise<void>
  /** Start again on the same port (empty: nothing is saved). */
  restart(): Promise<void>
  stop(): Promise<void>
  /** SIGSTOP / SIGCONT: Redis keeps its connections open but answers nothing (a stalled server). */
  pause(): void
  resume(): void
}

function freePort(): number {
  const listener = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } })
  const { port } = listener
  listener.stop(true)
  return port
}

async function spawnRedis(port: number): Promise<Bun.Subprocess> {
  const child = Bun.spawn(
    ['redis-server', '--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'no'],
    {
      stdout: 'ignore',
      stderr: 'ignore',
    },
  )
  const deadline = Date.now() + 5000
  while (Date.now() < deadline) {
    const client = new RedisClient(`redis://127.0.0.1:${port}`, { autoReconnect: false, connectionTimeout: 200 })
    try {
      await client.send('PING', [])
      client.close()
      return child
    } catch {
      client.close()
      await Bun.sleep(25)
    }
  }
  child.kill('SIGKILL')
  throw new Error(`redis-server did not start on port ${port}`)
}

export async function startTestRedis(): Promise<TestRedis> {
  const port = freePort()
  let child: Bun.Subprocess | undefined = await spawnRedis(port)
  const kill = async () => {
    child?.kill('SIGKILL')
    await child?.exited
    child = undefined
  }
  return {
    url: `redis://127.0.0.1:${port}/0`,
    port,
    kill,
    async restart() {
      child = await spawnRedis(port)
    },
    stop: kill,
    pause: () => child?.kill('SIGSTOP'),
    resume: () => child?.kill('SIGCONT'),
  }
}
