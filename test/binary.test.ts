import { afterAll, expect, test } from 'bun:test'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import OpenAI from 'openai'
import { makeWorkspace, runCli, startServe } from './support/cli.ts'
import { walFrames } from './support/wal-frames.ts'

const root = join(import.meta.dir, '..')
const binary = join(root, 'dist', 'tollgate')
let server: Awaited<ReturnType<typeof startServe>> | undefined

afterAll(() => server?.process.kill('SIGTERM'))

// The shipped artefact is the compiled binary: build it the way a user would and serve a request with it,
// far from the source tree (so embedded migrations and assets are really embedded).
test('`bun run build` produces dist/tollgate, which migrates, manages keys and streams an answer', async () => {
  const build = Bun.spawnSync(['bun', 'run', 'build'], { cwd: root, stdout: 'pipe', stderr: 'pipe' })
  expect(build.exitCode).toBe(0)
  expect(existsSync(binary)).toBe(true)
  const { dir, config } = makeWorkspace()
  const cli = [binary]
  const env = { PWD: dir }
  expect(runCli(cli, ['migrate', '--config', config], env).code).toBe(0)
  expect(runCli(cli, ['account', 'create', 'bin', '--balance', '1', '--config', config], env).code).toBe(0)
  const key = runCli(cli, ['key', 'create', '--account', 'bin', '--json', '--config', config], env).json()
  server = await startServe(cli, config)
  const client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: key.key, maxRetries: 0 })
  const stream = await client.chat.completions.create({
    model: 'mock-1',
    stream: true,
    messages: [{ role: 'user', content: 'from the binary' }],
  })
  let text = ''
  for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? ''
  expect(text).toContain('from the binary')
  // The console's page and bundle come out of the binary itself (no source tree, no network).
  const page = await fetch(`${server.url}/console`)
  expect(page.headers.get('content-security-policy')).toContain("script-src 'self'")
  const script = /src="(\/console\/assets\/app\.[^"]+\.js)"/.exec(await page.text())![1]!
  const bundle = await (await fetch(`${server.url}${script}`)).text()
  expect(bundle).toContain('Sign in')
  // The WAL checkpoint thread's code is embedded too: it copies the request's writes back into the database file.
  const database = join(dir, 'tollgate.db')
  let frames = walFrames(database)
  for (let round = 0; round < 40 && (frames.frames === 0 || frames.copied < frames.frames); round++) {
    await Bun.sleep(100)
    frames = walFrames(database)
  }
  expect(frames.frames).toBeGreaterThan(0)
  expect(frames.copied).toBe(frames.frames)
}, 60_000)
