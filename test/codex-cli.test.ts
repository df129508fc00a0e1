import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startTestGateway, type TestGateway } from './support/gateway.ts'
import { chatChunks, startOpenAiUpstream } from './support/openai-upstream.ts'
import { sseResponse, startUpstream, type TestUpstream } from './support/upstream.ts'

/**
 * The real Codex CLI (`@openai/codex` from npm, a native binary) against a running gateway, configured the way a
 * user would: a provider entry with `wire_api = "responses"` in $CODEX_HOME/config.toml and the key in an env var.
 * Codex offers its tools; the loopback upstream calls one, and so does the mock when the prompt asks for a tool, and
 * Codex sends the result back: each run is a full function-call round trip over the Responses protocol.
 */
const codex = join(import.meta.dir, '..', 'node_modules', '.bin', 'codex')

/** Why Codex cannot run here, checked by running it, or undefined when it can. */
function unavailable(): string | undefined {
  if (!existsSync(codex)) return `${codex} is missing (run bun install)`
  const probe = Bun.spawnSync([codex, '--version'], { stdout: 'pipe', stderr: 'pipe' })
  if (probe.exitCode !== 0) return `codex --version failed: ${probe.stderr.toString().trim().slice(0, 300)}`
  return undefined
}

const reason = unavailable()
if (reason) console.warn(`skipping the Codex CLI smoke test: ${reason}`)

let gateway: TestGateway
let upstream: TestUpstream
let brokenUpstream: TestUpstream
const directories: string[] = []

beforeAll(async () => {
  if (reason) return
  upstream = startOpenAiUpstream()
  // Sends the start of an answer, then hangs up before finishing it.
  brokenUpstream = startUpstream((request) => sseResponse(chatChunks(request).slice(0, 2)))
  gateway = await startTestGateway({
    config: {
      providers: [
        { name: 'mock', type: 'mock' },
        { name: 'up', type: 'openai', base_url: `${upstream.url}/v1`, api_key: 'upstream-secret' },
        { name: 'broken', type: 'openai', base_url: `${brokenUpstream.url}/v1` },
      ],
      models: [
        { id: 'mock-1', provider: 'mock', price: { input: 1, output: 2 } },
        {
          id: 'gpt-test',
          provider: 'up',
          upstream_model: 'real-model',
          price: { input: 1.25, output: 10, cached_input: 0.125 },
          max_output_tokens: 256,
        },
        { id: 'gpt-broken', provider: 'broken', price: { input: 1, output: 1 } },
      ],
    },
  })
})

afterAll(async () => {
  if (reason) return
  await gateway.stop()
  await upstream.stop()
  await brokenUpstream.stop()
  for (const directory of directories) rmSync(directory, { recursive: true, force: true })
})

/** `codex exec --json` in a fresh CODEX_HOME and working directory; returns its exit code and JSONL events. */
async function runCodex(model: string, prompt: string) {
  const home = mkdtempSync(join(tmpdir(), 'tollgate-codex-home-'))
  const work = mkdtempSync(join(tmpdir(), 'tollgate-codex-work-'))
  directories.push(home, work)
  writeFileSync(
    join(home, 'config.toml'),
    [
      `model = "${model}"`,
      'model_provider = "tollgate"',
      '',
      '[model_providers.tollgate]',
      'name = "Tollgate"',
      `base_url = "${gateway.baseUrl}"`,
      'env_key = "TOLLGATE_API_KEY"',
      'wire_api = "responses"',
      // Codex retries a failed stream five times by default; once is enough to see what it reports.
      'stream_max_retries = 0',
      '',
    ].join('\n'),
  )
  const child = Bun.spawn([codex, 'exec', '--skip-git-repo-check', '--ephemeral', '--sandbox', 'read-only', '--json', prompt], {
    cwd: work,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, CODEX_HOME: home, TOLLGATE_API_KEY: gateway.key },
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited])
  const events = stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line))
  return { code, events, transcript: `${stdout}\n${stderr}` }
}

/** A run that must succeed; when it does not, show what Codex said. */
async function runCodexOk(model: string, prompt: string) {
  const run = await runCodex(model, prompt)
  if (run.code !== 0) console.error(`codex exited with ${run.code}:\n${run.transcript}`)
  expect(run.code).toBe(0)
  return run
}

function agentMessages(events: any[]): string[] {
  return events.filter((event) => event.type === 'item.completed' && event.item.type === 'agent_message').map((event) => event.item.text)
}

describe.skipIf(reason !== undefined)('Codex CLI through the gateway', () => {
  test('codex exec against the mock provider: asked to use a tool, the mock calls one and answers its output', async () => {
    const { events } = await runCodexOk('mock-1', 'use a tool, then say hi')
    // Codex ran the tool the mock called, sent its output back, and shows the answer to that.
    expect(events.some((event) => event.type === 'item.completed' && event.item.type === 'command_execution')).toBe(true)
    expect(agentMessages(events).join('\n')).toContain('Hello from the Tollgate mock provider, the tool answered')
    expect(
      events.some(
        (event) => event.type === 'item.completed' && event.item.type === 'reasoning' && event.item.text === 'Let me think about that.',
      ),
    ).toBe(true)
  }, 120_000)

  test('codex exec "say hi" against the mock provider: a plain answer, no tool called', async () => {
    const { events } = await runCodexOk('mock-1', 'say hi')
    expect(events.some((event) => event.type === 'item.completed' && event.item.type === 'command_execution')).toBe(false)
    expect(agentMessages(events).join('\n')).toContain('Hello from the Tollgate mock provider, you said: say hi')
  }, 120_000)

  test('against an OpenAI-compatible upstream: the turn is translated both ways and billed exactly', async () => {
    const before = await gateway.settled()
    const seen = upstream.requests.length
    const { events } = await runCodexOk('gpt-test', 'say hi')
    expect(agentMessages(events).join('\n')).toContain('The tool said')
    const sent = upstream.requests.slice(seen).map((request) => request.body)
    expect(sent).toHaveLength(2)
    expect(sent[0].messages[0]).toMatchObject({ role: 'system', content: expect.stringContaining('Codex CLI') })
    expect(sent[0].tools.map((tool: any) => tool.function.name)).toContain('exec_command')
    // The upstream's call (arguments exec_command cannot use) came back from Codex as a tool result.
    expect(sent[1].messages.at(-2).tool_calls[0]).toMatchObject({ id: 'call_upstream_1', function: { name: 'exec_command' } })
    expect(sent[1].messages.at(-1)).toMatchObject({ role: 'tool', tool_call_id: 'call_upstream_1' })
    // Codex read usage from both response.completed events: 2 × (11 input of which 3 cached, 7 output).
    expect(events.find((event) => event.type === 'turn.completed').usage).toMatchObject({
      input_tokens: 22,
      cached_input_tokens: 6,
      output_tokens: 14,
    })
    const after = await gateway.settled()
    expect(before.balance - after.balance).toBe(2 * 80_375)
  }, 120_000)

  test('an upstream that fails mid-stream reaches Codex as a failed turn with the reason, not a hang', async () => {
    const { code, events } = await runCodex('gpt-broken', 'say hi')
    expect(code).toBe(1)
    expect(events.find((event) => event.type === 'turn.failed').error.message).toContain(
      'Upstream stream ended before the answer was complete',
    )
  }, 120_000)
})
