import { afterAll, expect, test } from 'bun:test'
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'

/**
 * `npm run demo` from a fresh clone installs only what serving needs (the three vendor CLIs alone are over a
 * gigabyte of dev dependencies), and the demo runs on exactly that: a copy of the repository without node_modules.
 */
const root = resolve(import.meta.dir, '..')
const clone = mkdtempSync(join(tmpdir(), 'tollgate-demo-'))
for (const entry of ['package.json', 'bun.lock', 'tsconfig.json', 'src', 'scripts', 'drizzle'])
  cpSync(join(root, entry), join(clone, entry), { recursive: true })
afterAll(() => rmSync(clone, { recursive: true, force: true }))

test('npm run demo installs no dev dependency, then streams an answer and keeps serving', async () => {
  const child = Bun.spawn(['sh', 'scripts/demo.sh'], {
    cwd: clone,
    env: { ...process.env, PORT: '0' },
    stdout: 'pipe',
    stderr: 'pipe',
    stdin: 'ignore',
  })
  let output = ''
  try {
    const reader = child.stdout.getReader()
    const deadline = Date.now() + 60_000
    while (!output.includes('Try it yourself') && Date.now() < deadline) {
      const { value, done } = await reader.read()
      if (done) break
      output += new TextDecoder().decode(value)
    }
    reader.releaseLock()
  } finally {
    child.kill('SIGINT')
  }
  expect(await child.exited).toBe(0)
  expect(output).toContain('Hello from the Tollgate mock provider')
  expect(output).toContain('export KEY=tg-')
  for (const dev of ['@anthropic-ai/claude-code', '@google/gemini-cli', '@openai/codex', 'openai', 'playwright-core', '@google/genai']) {
    expect(existsSync(join(clone, 'node_modules', dev))).toBe(false)
  }
  expect(existsSync(join(clone, 'node_modules', 'elysia'))).toBe(true)
  // A folder of its own: the "real" set-up's ./data/tollgate.db never sees the demo's account and keys.
  expect(existsSync(join(clone, 'data', 'demo', 'tollgate.db'))).toBe(true)
  expect(existsSync(join(clone, 'data', 'tollgate.db'))).toBe(false)
}, 120_000)
