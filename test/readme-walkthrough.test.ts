import { afterAll, beforeAll, expect, test } from 'bun:test'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import type { Subprocess } from 'bun'

/**
 * The README followed as a newcomer would, from a fresh clone (the repository's files, no node_modules, no data):
 * `npm run demo`, its curl and OpenAI snippet against it, Ctrl-C; then "Running it for real" line by line, verbatim,
 * and every snippet again against that gateway — the batch files of the three SDKs included, each installed with the
 * README's own `npm i` line in a folder of its own. The code is read from README.md, so a step that stops working, or
 * a README edit that breaks one, fails here. Only the address differs: a free port instead of 8080 (PORT=0).
 */
const root = resolve(import.meta.dir, '..')
const readme = readFileSync(join(root, 'README.md'), 'utf8')
const work = mkdtempSync(join(tmpdir(), 'tollgate-walkthrough-'))
const clone = join(work, 'clone')
const client = join(work, 'client')
const running: Subprocess[] = []

/** The README's section under a heading, up to the next heading of the same or a higher level. */
function section(heading: string): string {
  const start = readme.indexOf(`\n${heading}\n`)
  if (start < 0) throw new Error(`README has no "${heading}"`)
  const level = heading.match(/^#+/)![0].length
  const rest = readme.slice(start + heading.length + 2)
  const next = rest.search(new RegExp(`\\n#{1,${level}} `))
  return next < 0 ? rest : rest.slice(0, next)
}

/** The fenced blocks of a text, with the text before each (where the README names the file a block is). */
function blocks(text: string): { language: string; code: string; before: string }[] {
  return [...text.matchAll(/```(\w*)\n([\s\S]*?)```/g)].map((match) => ({
    language: match[1]!,
    code: match[2]!,
    before: text.slice(Math.max(0, match.index! - 200), match.index!),
  }))
}

/** Each `name.mjs` block of a section, by the file name written just before it. */
function files(text: string): Map<string, string> {
  const found = new Map<string, string>()
  for (const block of blocks(text).filter((item) => item.language === 'js')) {
    const name = [...block.before.matchAll(/`([\w-]+\.mjs)`/g)].at(-1)?.[1]
    if (name) found.set(name, block.code)
  }
  return found
}

/** A shell line as the README writes it, with the README's address made this run's. */
function run(line: string, cwd: string, env: Record<string, string> = {}, url?: string) {
  const command = url ? line.replaceAll('http://127.0.0.1:8080', url) : line
  const result = Bun.spawnSync(['sh', '-c', command], {
    cwd,
    env: { ...process.env, ...env },
    stdout: 'pipe',
    stderr: 'pipe',
    timeout: 240_000,
  })
  const output = { code: result.exitCode, stdout: result.stdout.toString(), stderr: result.stderr.toString() }
  if (output.code !== 0) throw new Error(`\`${command}\` in ${cwd} failed (${output.code}):\n${output.stdout}\n${output.stderr}`)
  return output
}

/** Start a long-running README command and read its output until `pattern` matches. */
async function startUntil(
  command: string,
  cwd: string,
  pattern: RegExp,
): Promise<{ child: Subprocess<'ignore', 'pipe', 'pipe'>; match: RegExpExecArray; output: () => string }> {
  // A session of its own, as a terminal gives: Ctrl-C reaches every process of it (npm, sh, bun), not only the first.
  const child = Bun.spawn(['setsid', 'sh', '-c', `exec ${command}`], {
    cwd,
    env: { ...process.env, PORT: '0' },
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
  })
  running.push(child)
  const reader = child.stdout.getReader()
  let output = ''
  const deadline = Date.now() + 120_000
  while (Date.now() < deadline) {
    const { value, done } = await reader.read()
    if (done) break
    output += new TextDecoder().decode(value)
    const match = pattern.exec(output)
    if (match) {
      reader.releaseLock()
      void child.stdout.pipeTo(new WritableStream({ write: (chunk) => void (output += new TextDecoder().decode(chunk)) })).catch(() => {})
      return { child, match, output: () => output }
    }
  }
  throw new Error(`\`${command}\` never printed ${pattern}: ${output}${await new Response(child.stderr).text()}`)
}

const quickstart = section('## Quickstart (no upstream account needed)')
const real = section('## Running it for real')
const batches = section('## Batches (tasks)')
const snippets = files(quickstart)

/** The README's client examples against a gateway: curl, then the OpenAI SDK file. */
function tryClients(url: string, key: string) {
  const curl = blocks(quickstart)
    .find((block) => block.code.startsWith('curl '))!
    .code.replace(/\\\n\s*/g, '')
  const streamed = run(curl.replaceAll('$KEY', key).replace('curl ', 'curl -sS '), work, {}, url).stdout
  expect(streamed).toContain('"object":"chat.completion.chunk"')
  expect(streamed.trimEnd()).toEndWith('data: [DONE]')
  writeFileSync(join(client, 'hello.mjs'), snippets.get('hello.mjs')!.replaceAll('http://127.0.0.1:8080', url))
  expect(run('node hello.mjs', client, { KEY: key }).stdout).toBe('Hello from the Tollgate mock provider, you said: Hi')
}

beforeAll(() => {
  // A fresh clone: the files git knows, as they are in this working tree.
  const tracked = Bun.spawnSync(['git', 'ls-files', '-z'], { cwd: root, stdout: 'pipe' }).stdout.toString().split('\0').filter(Boolean)
  for (const path of tracked) {
    if (!existsSync(join(root, path))) continue
    mkdirSync(dirname(join(clone, path)), { recursive: true })
    cpSync(join(root, path), join(clone, path))
  }
  mkdirSync(client)
})

afterAll(async () => {
  for (const child of running) {
    try {
      process.kill(-child.pid, 'SIGKILL')
    } catch {} // already gone
  }
  await Promise.all(running.map((child) => child.exited))
  rmSync(work, { recursive: true, force: true })
})

test('the README names every step it relies on', () => {
  expect(blocks(quickstart)[0]!.code).toContain('npm run demo')
  expect(snippets.has('hello.mjs')).toBe(true)
  expect(blocks(quickstart).some((block) => block.code.trim() === 'npm i openai')).toBe(true)
  expect(blocks(real)[0]!.code).toContain('cp examples/tollgate.yaml tollgate.yaml')
  expect([...files(batches).keys()]).toEqual(['batch-openai.mjs', 'batch-anthropic.mjs', 'batch-gemini.mjs'])
})

test('demo, then "Running it for real" verbatim, then every snippet against it', async () => {
  // 1. npm run demo, and the two client examples against it. The OpenAI SDK is installed as the README says.
  const demo = await startUntil('npm run demo', clone, /listening on (http:\/\/[\d.:]+)[\s\S]*export KEY=(tg-\w+)\n/)
  run(
    blocks(quickstart)
      .find((block) => block.code.trim() === 'npm i openai')!
      .code.trim(),
    client,
  )
  tryClients(demo.match[1]!, demo.match[2]!)
  process.kill(-demo.child.pid, 'SIGINT') // "Ctrl-C in its terminal stops it"
  expect([0, 130]).toContain(await demo.child.exited) // npm reports the Ctrl-C as 130, as in a terminal
  expect(await fetch(`${demo.match[1]}/healthz`).catch(() => 'stopped')).toBe('stopped')
  expect(existsSync(join(clone, 'data', 'demo', 'tollgate.db'))).toBe(true)

  // 2. Running it for real, one line at a time as written; serve stays up.
  let key = ''
  let url = ''
  for (const raw of blocks(real)[0]!.code.split('\n')) {
    const line = raw.replace(/\s+#.*$/, '').trim()
    if (!line) continue
    if (/ serve( |$)/.test(line)) {
      const serve = await startUntil(line, clone, /"url":"(http:[^"]+)"/)
      url = serve.match[1]!
      continue
    }
    const output = run(line, clone)
    if (line.includes('migrate')) expect(output.stdout).toContain('created a new database at sqlite:')
    key = /\b(tg-[0-9A-Za-z]{40})\b/.exec(output.stdout)?.[1] ?? key
  }
  expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
  expect(key).not.toBe('')
  // The demo's account never reached this database.
  expect(run('dist/tollgate account list', clone).stdout).not.toContain('demo')

  // 3. Every snippet against the real gateway: curl, the OpenAI file, and the batch files of the three SDKs.
  tryClients(url, key)
  run(/`(npm i openai @anthropic-ai\/sdk @google\/genai)`/.exec(batches)![1]!, client)
  for (const [name, code] of files(batches)) writeFileSync(join(client, name), code.replaceAll('http://127.0.0.1:8080', url))
  const openai = run('node batch-openai.mjs', client, { KEY: key })
    .stdout.trim()
    .split('\n')
    .map((line) => JSON.parse(line))
  expect(openai.map((line) => [line.custom_id, line.response.status_code]).sort()).toEqual([
    ['q1', 200],
    ['q2', 200],
  ])
  expect(run('node batch-anthropic.mjs', client, { KEY: key }).stdout).toBe('a succeeded\n')
  expect(run('node batch-gemini.mjs', client, { KEY: key }).stdout).toContain('Hello from the Tollgate mock provider')
}, 600_000)
