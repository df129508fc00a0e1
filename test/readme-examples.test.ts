import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import type { Subprocess } from 'bun'
import { loadConfig } from '../src/config/load.ts'
import { findClaudeCode, makeWorkDir, runClaudeCode } from './support/claude-code.ts'

/**
 * The README's client examples, run as a reader would: the shipped examples/tollgate.yaml served by `tollgate serve`
 * from a fresh folder, an account and a key made with the CLI, then curl, the OpenAI SDK snippet, `claude -p` and
 * `gemini -p` exactly as the README writes them — only the address differs (port 0 instead of 8080, which is taken
 * on a shared machine).
 */
const root = resolve(import.meta.dir, '..')
const example = join(root, 'examples', 'tollgate.yaml')
const main = join(root, 'src', 'main.ts')
const folder = mkdtempSync(join(tmpdir(), 'tollgate-readme-'))
let server: Subprocess<'ignore', 'pipe', 'pipe'>
let url: string
let key: string

function cli(...args: string[]) {
  const result = Bun.spawnSync(['bun', main, ...args, '--config', example], { cwd: folder, stdout: 'pipe', stderr: 'pipe' })
  if (result.exitCode !== 0) throw new Error(`tollgate ${args.join(' ')}: ${result.stderr}`)
  return result.stdout.toString()
}

beforeAll(async () => {
  server = Bun.spawn(['bun', main, 'serve', '--config', example], {
    cwd: folder,
    env: { ...process.env, PORT: '0' },
    stdout: 'pipe',
    stderr: 'pipe',
    stdin: 'ignore',
  })
  const reader = server.stdout.getReader()
  let buffered = ''
  for (let next = await reader.read(); !next.done; next = await reader.read()) {
    buffered += new TextDecoder().decode(next.value)
    const match = /"url":"(http:[^"]+)"/.exec(buffered)
    if (match) {
      url = match[1]!
      break
    }
  }
  reader.releaseLock()
  void server.stdout.pipeTo(new WritableStream()).catch(() => {})
  if (!url) throw new Error(`serve did not start: ${buffered}${await new Response(server.stderr).text()}`)
  cli('account', 'create', 'demo', '--balance', '10')
  key = JSON.parse(cli('key', 'create', '--account', 'demo', '--json')).key
})

afterAll(async () => {
  server?.kill('SIGTERM')
  await server?.exited
  rmSync(folder, { recursive: true, force: true })
})

describe('examples/tollgate.yaml', () => {
  test('serve starts on it, with its database in the folder it runs from', () => {
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect(existsSync(join(folder, 'data', 'tollgate.db'))).toBe(true)
  })

  test('with every commented provider and model uncommented, it is still a valid config', () => {
    const uncommented = readFileSync(example, 'utf8').replace(/^( *)# (- |  )/gm, '$1$2')
    const path = join(folder, 'everything.yaml')
    writeFileSync(path, uncommented)
    const config = loadConfig({ path, env: { OPENAI_API_KEY: 'o', ANTHROPIC_API_KEY: 'a', GEMINI_API_KEY: 'g' } })
    expect(config.providers.map((provider) => provider.name)).toEqual(['mock', 'openai', 'anthropic', 'gemini', 'local'])
    expect(config.models.map((model) => model.id)).toEqual([
      'mock-1',
      'mock-fast',
      'mock-embed',
      'mock-image',
      'mock-rerank',
      'mock-tts',
      'mock-stt',
      'gpt-mini',
      'claude-sonnet',
      'gemini-flash',
      'embed-small',
      'gemini-embed',
    ])
  })
})

describe('the README client examples against it', () => {
  test.skipIf(!Bun.which('curl'))('curl -N streams a chat completion', () => {
    const result = Bun.spawnSync(
      [
        'curl',
        '-sS',
        '-N',
        `${url}/v1/chat/completions`,
        '-H',
        `Authorization: Bearer ${key}`,
        '-d',
        '{"model":"mock-1","stream":true,"messages":[{"role":"user","content":"Hello"}]}',
      ],
      { stdout: 'pipe', stderr: 'pipe' },
    )
    expect(result.exitCode).toBe(0)
    const text = result.stdout.toString()
    expect(text).toContain('"object":"chat.completion.chunk"')
    expect(text).toContain('"delta":{"content":" Tollgate"}')
    expect(text.trimEnd()).toEndWith('data: [DONE]')
  })

  test.skipIf(!Bun.which('curl'))('curl embeds two texts with mock-embed (README "Embeddings")', () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8')
    const command = /```sh\n(curl -s http:\/\/127\.0\.0\.1:8080\/v1\/embeddings[^`]*)```/.exec(readme)![1]!
    const result = Bun.spawnSync(['sh', '-c', command.replace('http://127.0.0.1:8080', url)], {
      env: { ...process.env, KEY: key },
      stdout: 'pipe',
      stderr: 'pipe',
    })
    expect(result.exitCode).toBe(0)
    const answer = JSON.parse(result.stdout.toString())
    expect(answer).toMatchObject({ object: 'list', model: 'mock-embed', usage: { prompt_tokens: 11, total_tokens: 11 } })
    expect(answer.data.map((item: { index: number; embedding: number[] }) => [item.index, item.embedding.length])).toEqual([
      [0, 4],
      [1, 4],
    ])
    // Unit vectors: the mock's are normalised.
    expect(Math.hypot(...answer.data[0].embedding)).toBeCloseTo(1, 5)
  })

  /** The README's curl example for `path` (its first ```sh block starting so), run against the server with the key. */
  function readmeCurl(path: string) {
    const readme = readFileSync(join(root, 'README.md'), 'utf8')
    const command = new RegExp(`\`\`\`sh\n(curl -s http://127\\.0\\.0\\.1:8080${path.replaceAll('/', '\\/')}[^\`]*)\`\`\``).exec(
      readme,
    )![1]!
    const result = Bun.spawnSync(['sh', '-c', command.replace('http://127.0.0.1:8080', url)], {
      env: { ...process.env, KEY: key },
      stdout: 'pipe',
      stderr: 'pipe',
    })
    expect(result.exitCode).toBe(0)
    return JSON.parse(result.stdout.toString())
  }

  test.skipIf(!Bun.which('curl'))('curl makes two images with mock-image (README "Images")', () => {
    const answer = readmeCurl('/v1/images/generations')
    expect(answer.data).toHaveLength(2)
    const png = Buffer.from(answer.data[0].b64_json, 'base64')
    expect(png.subarray(1, 4).toString()).toBe('PNG')
    expect(png.readUInt32BE(16)).toBe(256) // IHDR width
    expect(answer.size).toBe('256x256')
  })

  test.skipIf(!Bun.which('curl'))('curl reranks two documents with mock-rerank (README "Rerank")', () => {
    const answer = readmeCurl('/v1/rerank')
    expect(answer.results).toEqual([{ index: 1, relevance_score: 1, document: { text: 'Paris is the capital of France.' } }])
    expect(answer.meta).toEqual({ billed_units: { search_units: 1 } })
  })

  test.skipIf(!Bun.which('curl'))(
    'curl speaks a WAV with mock-tts, then transcribes it with mock-stt (README "Speech and transcription")',
    () => {
      const readme = readFileSync(join(root, 'README.md'), 'utf8')
      const commands = /```sh\n(curl -s http:\/\/127\.0\.0\.1:8080\/v1\/audio\/speech[^`]*)```/.exec(readme)![1]!
      const work = mkdtempSync(join(tmpdir(), 'tollgate-readme-audio-'))
      const result = Bun.spawnSync(['sh', '-c', commands.replaceAll('http://127.0.0.1:8080', url)], {
        cwd: work,
        env: { ...process.env, KEY: key },
        stdout: 'pipe',
        stderr: 'pipe',
      })
      expect(result.exitCode).toBe(0)
      const wav = readFileSync(join(work, 'hello.wav'))
      expect(wav.subarray(0, 4).toString()).toBe('RIFF') // 19 characters × 40 ms of 24 kHz 16-bit silence
      expect(wav.length).toBe(44 + Math.round(19 * 0.04 * 24_000) * 2)
      expect(JSON.parse(result.stdout.toString())).toMatchObject({
        task: 'transcribe',
        duration: 0.76,
        text: '0.76 seconds of wav',
        usage: { type: 'duration', seconds: 1 },
      })
      rmSync(work, { recursive: true, force: true })
    },
  )

  test('the OpenAI SDK snippet streams an answer', () => {
    const snippet = `import OpenAI from 'openai'
const client = new OpenAI({ baseURL: '${url}/v1', apiKey: process.env.KEY })
const stream = client.chat.completions.stream({ model: 'mock-1', messages: [{ role: 'user', content: 'Hi' }] })
for await (const chunk of stream) process.stdout.write(chunk.choices[0]?.delta?.content ?? '')`
    const result = Bun.spawnSync(['bun', '-e', snippet], { cwd: root, env: { ...process.env, KEY: key }, stdout: 'pipe', stderr: 'pipe' })
    expect(result.stderr.toString()).toBe('')
    expect(result.stdout.toString()).toBe('Hello from the Tollgate mock provider, you said: Hi')
  })

  const claude = findClaudeCode()
  test.skipIf('missing' in claude)(
    'ANTHROPIC_BASE_URL=… ANTHROPIC_API_KEY=$KEY ANTHROPIC_MODEL=mock-1 claude -p "say hi"',
    async () => {
      const run = await runClaudeCode((claude as { path: string }).path, {
        baseUrl: url,
        apiKey: key,
        model: 'mock-1',
        prompt: 'say hi',
        workDir: makeWorkDir({}),
      })
      expect({ exitCode: run.exitCode, stdout: run.stdout.trim() }).toEqual({
        exitCode: 0,
        stdout: 'Hello from the Tollgate mock provider, you said: say hi',
      })
    },
    120_000,
  )

  const gemini = join(root, 'node_modules', '@google', 'gemini-cli', 'bundle', 'gemini.js')
  test.skipIf(!Bun.which('node') || !existsSync(gemini))(
    'GOOGLE_GEMINI_BASE_URL=… GEMINI_API_KEY=$KEY GEMINI_CLI_TRUST_WORKSPACE=true gemini -m mock-1 -p "say hi"',
    async () => {
      // A new user's HOME: only the settings.json the README asks for. The working folder is one the CLI never saw,
      // which it refuses as untrusted (exit 55) unless GEMINI_CLI_TRUST_WORKSPACE=true (or --skip-trust) says otherwise.
      const home = mkdtempSync(join(tmpdir(), 'tollgate-readme-gemini-'))
      mkdirSync(join(home, '.gemini'))
      writeFileSync(join(home, '.gemini', 'settings.json'), '{"security":{"auth":{"selectedType":"gemini-api-key"}}}')
      const work = makeWorkDir({})
      try {
        const child = Bun.spawn([Bun.which('node')!, gemini, '-m', 'mock-1', '-p', 'say hi'], {
          cwd: work,
          stdin: 'ignore',
          stdout: 'pipe',
          stderr: 'pipe',
          timeout: 90_000,
          env: {
            PATH: process.env.PATH ?? '/usr/bin:/bin',
            HOME: home,
            GOOGLE_GEMINI_BASE_URL: url,
            GEMINI_API_KEY: key,
            GEMINI_CLI_TRUST_WORKSPACE: 'true',
          },
        })
        const [stdout, stderr, code] = await Promise.all([
          new Response(child.stdout).text(),
          new Response(child.stderr).text(),
          child.exited,
        ])
        expect({ code, stderr: code === 0 ? '' : stderr }).toEqual({ code: 0, stderr: '' })
        expect(stdout).toContain('Hello from the Tollgate mock provider')
      } finally {
        rmSync(home, { recursive: true, force: true })
        rmSync(work, { recursive: true, force: true })
      }
    },
    120_000,
  )

  const codex = join(root, 'node_modules', '.bin', 'codex')
  test.skipIf(!existsSync(codex))(
    'Codex with the README\'s model catalog: no "model metadata not found" warning',
    async () => {
      const readme = readFileSync(join(root, 'README.md'), 'utf8')
      const catalog = /model_catalog_json[\s\S]*?```json\n([\s\S]*?)```/.exec(readme)![1]!
      expect(JSON.parse(catalog).models[0]).toMatchObject({ slug: 'mock-1', context_window: 200000 })
      const home = mkdtempSync(join(tmpdir(), 'tollgate-readme-codex-'))
      const work = mkdtempSync(join(tmpdir(), 'tollgate-readme-codex-work-'))
      writeFileSync(join(home, 'catalog.json'), catalog)
      const config = (extra: string) =>
        [
          extra,
          'model = "mock-1"',
          'model_provider = "tollgate"',
          '',
          '[model_providers.tollgate]',
          'name = "Tollgate"',
          `base_url = "${url}/v1"`,
          'env_key = "TOLLGATE_API_KEY"',
          'wire_api = "responses"',
          '',
        ].join('\n')
      const runCodex = async () => {
        const child = Bun.spawn([codex, 'exec', '--skip-git-repo-check', '--ephemeral', '--sandbox', 'read-only', 'say hi'], {
          cwd: work,
          stdin: 'ignore',
          stdout: 'pipe',
          stderr: 'pipe',
          timeout: 90_000,
          env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, CODEX_HOME: home, TOLLGATE_API_KEY: key },
        })
        const [stdout, stderr, code] = await Promise.all([
          new Response(child.stdout).text(),
          new Response(child.stderr).text(),
          child.exited,
        ])
        return { code, text: `${stdout}\n${stderr}` }
      }
      try {
        writeFileSync(join(home, 'config.toml'), config(''))
        expect((await runCodex()).text).toContain('Model metadata for `mock-1` not found') // what the README fixes
        writeFileSync(join(home, 'config.toml'), config(`model_catalog_json = "${join(home, 'catalog.json')}"`))
        const run = await runCodex()
        expect(run.code).toBe(0)
        expect(run.text).not.toContain('Model metadata for')
        expect(run.text).toContain('Hello from the Tollgate mock provider, you said: say hi')
      } finally {
        rmSync(home, { recursive: true, force: true })
        rmSync(work, { recursive: true, force: true })
      }
    },
    200_000,
  )

  test('every answer above was billed to the demo account', () => {
    const usage = JSON.parse(cli('usage', '--account', 'demo', '--json'))
    expect(usage.requests).toBeGreaterThanOrEqual(2)
    expect(JSON.parse(cli('account', 'show', 'demo', '--json')).balance_usd).not.toBe('10.00')
  })
})
