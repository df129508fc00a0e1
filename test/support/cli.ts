import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Subprocess } from 'bun'

/** A temp folder with a config file whose database is a SQLite file inside it. */
export function makeWorkspace(yaml = ''): { dir: string; config: string } {
  const dir = mkdtempSync(join(tmpdir(), 'tollgate-cli-'))
  const config = join(dir, 'tollgate.yaml')
  writeFileSync(
    config,
    `listen: { host: 127.0.0.1, port: 0 }\ndatabase: sqlite:${join(dir, 'tollgate.db')}\n${
      yaml ||
      `providers:
  - { name: mock, type: mock }
models:
  - { id: mock-1, provider: mock, price: { input: 1.25, output: 10, cached_input: 0.125 } }
  - { id: mock-fast, provider: mock, price: { input: 0.1, output: 0.2 } }
`
    }`,
  )
  return { dir, config }
}

/** Run one CLI command to completion. `command` is the program and its leading arguments. */
export function runCli(command: string[], args: string[], env: Record<string, string> = {}) {
  const result = Bun.spawnSync([...command, ...args], { env: { ...process.env, ...env }, stdout: 'pipe', stderr: 'pipe' })
  const stdout = result.stdout.toString()
  return { code: result.exitCode, stdout, stderr: result.stderr.toString(), json: () => JSON.parse(stdout) }
}

/**
 * Start `serve` and wait for its "listening" log line; returns its URL. `options` replace the environment (default:
 * this process's) or the working folder of the server.
 */
export async function startServe(
  command: string[],
  config: string,
  options: { env?: Record<string, string | undefined>; cwd?: string } = {},
): Promise<{ url: string; process: Subprocess<'ignore', 'pipe', 'pipe'>; output: () => string }> {
  const child = Bun.spawn([...command, 'serve', '--config', config], { stdout: 'pipe', stderr: 'pipe', stdin: 'ignore', ...options })
  const reader = child.stdout.getReader()
  let buffered = ''
  const deadline = Date.now() + 20_000
  while (Date.now() < deadline) {
    const { value, done } = await reader.read()
    if (done) break
    buffered += new TextDecoder().decode(value)
    const match = /"url":"(http:[^"]+)"/.exec(buffered)
    if (match) {
      reader.releaseLock()
      // Keep draining stdout so the child never blocks on a full pipe; its log lines stay readable (`output`).
      let logged = buffered
      void child.stdout.pipeTo(new WritableStream({ write: (chunk) => void (logged += new TextDecoder().decode(chunk)) })).catch(() => {})
      return { url: match[1]!, process: child, output: () => logged }
    }
  }
  child.kill()
  throw new Error(`serve did not start: ${buffered}${await new Response(child.stderr).text()}`)
}

/**
 * `serve` as its own process on a fresh workspace (`yaml`, else the mock's), migrated, with an account holding $100
 * and a key of it: how the upload tests measure the gateway's memory apart from the test's own.
 */
export async function serveWithKey(
  yaml = '',
  env?: Record<string, string | undefined>,
): Promise<{ server: Awaited<ReturnType<typeof startServe>>; key: string }> {
  const cli = ['bun', 'src/main.ts']
  const { config } = makeWorkspace(yaml)
  const run = (...args: string[]) => {
    const result = runCli(cli, [...args, '--config', config])
    if (result.code !== 0) throw new Error(`tollgate ${args.join(' ')}: ${result.stderr}`)
    return result
  }
  run('migrate')
  run('account', 'create', 'acme', '--balance', '100')
  const key = run('key', 'create', '--account', 'acme', '--json').json().key as string
  return { server: await startServe(cli, config, env ? { env } : undefined), key }
}
