import { afterAll, beforeAll, expect, test } from 'bun:test'
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startTestGateway, type TestGateway } from './support/gateway.ts'
import { startUpstream, type TestUpstream } from './support/upstream.ts'

/**
 * Smoke test with the real Gemini CLI from npm (`@google/gemini-cli`, a devDependency) in headless mode against the
 * gateway and its mock provider. A recording proxy in front of the gateway shows every call the CLI makes.
 *
 * The CLI picks the "gateway" auth type whenever GOOGLE_GEMINI_BASE_URL is set, and this version's validator then
 * rejects it ("Invalid auth method selected."); selecting `gemini-api-key` in settings.json keeps the base URL and
 * sends the key as x-goog-api-key, which is what a user of the gateway does.
 */
const cli = join(import.meta.dir, '..', 'node_modules', '@google', 'gemini-cli', 'bundle', 'gemini.js')

/** Why the CLI cannot run here, checked by running it, or undefined when it can. */
function unavailable(): string | undefined {
  const node = Bun.which('node')
  if (!node) return 'node is not installed (the Gemini CLI is a Node program)'
  if (!existsSync(cli)) return `${cli} is missing (run bun install)`
  const probe = Bun.spawnSync([node, cli, '--version'], {
    stdout: 'pipe',
    stderr: 'pipe',
    env: { PATH: process.env.PATH ?? '', HOME: tmpdir() },
  })
  if (probe.exitCode !== 0) return `gemini --version failed: ${probe.stderr.toString().trim().slice(0, 300)}`
  return undefined
}

const skipReason = unavailable()
if (skipReason) console.warn(`skipping the Gemini CLI smoke test: ${skipReason}`)

let gateway: TestGateway
let proxy: TestUpstream
let home: string
const statuses: number[] = []

beforeAll(async () => {
  if (skipReason) return
  gateway = await startTestGateway({
    config: {
      providers: [{ name: 'mock', type: 'mock' }],
      models: [{ id: 'tollgate-cli', provider: 'mock', price: { input: 1, output: 2 }, max_output_tokens: 4096 }],
    },
  })
  proxy = startUpstream(async (request, raw) => {
    const response = await fetch(gateway.url + request.path, {
      method: request.method,
      headers: raw.headers,
      body: request.method === 'GET' ? undefined : request.rawBody,
    })
    statuses.push(response.status)
    return response
  })
  home = mkdtempSync(join(tmpdir(), 'tollgate-gemini-cli-'))
  mkdirSync(join(home, '.gemini'))
  writeFileSync(
    join(home, '.gemini', 'settings.json'),
    JSON.stringify({
      security: { auth: { selectedType: 'gemini-api-key' } },
      telemetry: { enabled: false },
      privacy: { usageStatisticsEnabled: false },
      general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
      // Asked for a tool, the mock calls the first one offered; keep anything that writes or runs commands out of reach.
      tools: { exclude: ['run_shell_command', 'write_file', 'replace'] },
    }),
  )
})

afterAll(async () => {
  if (skipReason) return
  await proxy.stop()
  await gateway.stop()
  rmSync(home, { recursive: true, force: true })
})

test.skipIf(skipReason !== undefined)(
  'gemini -p "use a tool, then say hi" answers through the gateway, with a tool round trip',
  async () => {
    const before = await gateway.settled()
    const child = Bun.spawn([Bun.which('node')!, cli, '-m', 'tollgate-cli', '-p', 'use a tool, then say hi'], {
      cwd: home,
      stdin: 'ignore',
      stdout: 'pipe',
      stderr: 'pipe',
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: home,
        NO_COLOR: '1',
        CI: 'true',
        GOOGLE_GEMINI_BASE_URL: proxy.url,
        GEMINI_API_KEY: gateway.key,
        GEMINI_CLI_TRUST_WORKSPACE: 'true',
        GEMINI_TELEMETRY_ENABLED: 'false',
      },
    })
    const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited])
    if (code !== 0) console.error(stderr)
    expect(code).toBe(0)
    expect(stdout).toContain('Hello from the Tollgate mock provider')

    // Every call the CLI made reached a Gemini route and succeeded.
    expect(proxy.requests.length).toBeGreaterThan(0)
    expect(statuses.every((status) => status === 200)).toBe(true)
    for (const request of proxy.requests)
      expect(request.path).toMatch(/^\/v1beta\/models\/tollgate-cli:(streamGenerateContent\?alt=sse|generateContent|countTokens)$/)
    expect(proxy.requests.every((request) => request.headers['x-goog-api-key'] === gateway.key)).toBe(true)

    // The mock called the CLI's first tool, as the prompt asked; the CLI answered with a functionResponse carrying the call's id.
    const partsOf = (body: any): Record<string, any>[] =>
      (body?.contents ?? []).flatMap((content: { parts?: unknown[] }) => content.parts ?? [])
    const followUp = proxy.requests.find((request) => partsOf(request.body).some((part) => part.functionResponse))!
    const call = partsOf(followUp.body).find((part) => part.functionCall)!.functionCall
    const response = partsOf(followUp.body).find((part) => part.functionResponse)!.functionResponse
    expect(response.name).toBe(call.name)
    expect(response.id).toBe(call.id)

    const after = await gateway.settled()
    expect(after.balance).toBeLessThan(before.balance)
  },
  120_000,
)
