import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { defaultDocument } from '../src/config/load.ts'
import { claudePrice } from './support/anthropic-setup.ts'
import { planAnthropicAnswer, startAnthropicUpstream, upstreamKey, type AnswerPlan } from './support/anthropic-upstream.ts'
import { findClaudeCode, makeWorkDir, runClaudeCode } from './support/claude-code.ts'
import { startTestGateway, type TestGateway } from './support/gateway.ts'
import { startOpenAiUpstream, type OpenAiAnswer } from './support/openai-upstream.ts'
import type { RecordedRequest, TestUpstream } from './support/upstream.ts'

/**
 * The real Claude Code CLI, run non-interactively against the gateway. Its upstreams say hello, or, when the prompt
 * names note.txt, call Claude Code's own Read tool on it, then repeat what the tool returned: the file's content can
 * only reach the final answer if the tool call and its result crossed the gateway intact, both ways.
 */
const claude = findClaudeCode()
const note = 'tollgate-note-42'
const workDir = makeWorkDir({ 'note.txt': `${note}\n` })
const notePath = join(workDir, 'note.txt')
const wantsNote = (messages: unknown) => JSON.stringify(messages).includes('note.txt')

const anthropicPlan: AnswerPlan = (body) => {
  const last = body.messages.at(-1)
  if (Array.isArray(last.content) && last.content.some((block: any) => block.type === 'tool_result'))
    return planAnthropicAnswer({ messages: [last] })
  if (wantsNote(body.messages)) return { toolCall: { id: 'toolu_read_1', name: 'Read', input: { file_path: notePath } } }
  return { text: 'Hello from upstream' }
}

const openAiPlan = (request: RecordedRequest): OpenAiAnswer => {
  const last = request.body.messages.at(-1)
  if (last.role === 'tool') return { text: `The tool said ${last.content}` }
  if (wantsNote(request.body.messages))
    return { toolCall: { id: 'call_read_1', name: 'Read', arguments: JSON.stringify({ file_path: notePath }) } }
  return { text: 'Hello from upstream' }
}

let anthropicUpstream: TestUpstream
let openAiUpstream: TestUpstream
let gateway: TestGateway
let mockGateway: TestGateway

beforeAll(async () => {
  anthropicUpstream = startAnthropicUpstream(anthropicPlan)
  openAiUpstream = startOpenAiUpstream(openAiPlan)
  // Model ids this Claude Code knows as current: older ones are remapped to newer ids, unknown ones draw a warning.
  const route = (id: string, provider: string, upstreamModel: string) => ({
    id,
    provider,
    upstream_model: upstreamModel,
    price: claudePrice,
    max_output_tokens: 8192,
  })
  gateway = await startTestGateway({
    config: {
      providers: [
        { name: 'claude-up', type: 'anthropic', base_url: anthropicUpstream.url, api_key: upstreamKey },
        { name: 'claude-up-ir', type: 'anthropic', base_url: anthropicUpstream.url, api_key: upstreamKey, passthrough: false },
        { name: 'openai-up', type: 'openai', base_url: `${openAiUpstream.url}/v1`, api_key: 'upstream-secret' },
      ],
      models: [
        route('claude-opus-5-5', 'claude-up', 'claude-real'),
        route('claude-sonnet-5-5', 'claude-up-ir', 'claude-real'),
        route('claude-haiku-5-5', 'openai-up', 'real-gpt'),
      ],
    },
  })
  // What `tollgate serve` runs with no config file: the mock provider and its models.
  mockGateway = await startTestGateway({ config: defaultDocument })
})

afterAll(async () => {
  await gateway?.stop()
  await mockGateway?.stop()
  await anthropicUpstream?.stop()
  await openAiUpstream?.stop()
  rmSync(workDir, { recursive: true, force: true })
})

const paths = [
  { model: 'claude-opus-5-5', name: 'Anthropic upstream, bytes forwarded', upstream: () => anthropicUpstream, forwarded: true },
  { model: 'claude-sonnet-5-5', name: 'Anthropic upstream, through the IR', upstream: () => anthropicUpstream, forwarded: false },
  { model: 'claude-haiku-5-5', name: 'OpenAI-compatible upstream, translated', upstream: () => openAiUpstream, forwarded: false },
]

if ('missing' in claude) {
  console.warn(`claude-code smoke tests skipped: ${claude.missing}. Run \`bun install\` (the package is a devDependency).`)
}

describe.skipIf('missing' in claude)('Claude Code CLI through the gateway', () => {
  const binary = 'path' in claude ? claude.path : ''

  // Claude Code offers its sub-agent tool first on every turn; a mock that called it unasked would never let the CLI finish.
  test('claude -p "say hi" → the built-in mock on the default config answers in text, and the CLI is done', async () => {
    const before = await mockGateway.settled()
    const run = await runClaudeCode(binary, {
      baseUrl: mockGateway.url,
      apiKey: mockGateway.key,
      model: 'mock-1',
      prompt: 'say hi',
      workDir,
    })
    expect({ exitCode: run.exitCode, stdout: run.stdout.trim() }).toMatchObject({
      exitCode: 0,
      stdout: 'Hello from the Tollgate mock provider, you said: say hi',
    })
    expect((await mockGateway.settled()).balance).toBeLessThan(before.balance)
  }, 120_000)

  for (const path of paths) {
    test(`claude -p "say hi" → ${path.name}`, async () => {
      const before = await gateway.settled()
      const sentBefore = path.upstream().requests.length
      const run = await runClaudeCode(binary, { baseUrl: gateway.url, apiKey: gateway.key, model: path.model, prompt: 'say hi', workDir })
      expect({ exitCode: run.exitCode, stdout: run.stdout.trim(), stderr: run.stderr }).toMatchObject({
        exitCode: 0,
        stdout: 'Hello from upstream',
      })
      const sent = path.upstream().requests.slice(sentBefore)
      expect(sent).toHaveLength(1)
      if (path.forwarded) {
        // Claude Code's own request, beta flags and all, as Anthropic would have received it.
        expect(sent[0]!.path).toBe('/v1/messages?beta=true')
        expect(sent[0]!.headers['anthropic-beta']).toContain('claude-code-')
        expect(sent[0]!.body.model).toBe('claude-real')
        expect(sent[0]!.body.max_tokens).toBe(8192)
      }
      // One upstream answer, billed by its usage: the Anthropic upstream's fixed counts; OpenAI's 8 + 3 cached + 7.
      const cost = path.upstream() === anthropicUpstream ? 5 * 3000 + 4 * 300 + 2 * 3750 + 7 * 15000 : 8 * 3000 + 3 * 300 + 7 * 15000
      expect(before.balance - (await gateway.settled()).balance).toBe(cost)
    }, 120_000)

    test(`claude -p runs its Read tool and answers from the result → ${path.name}`, async () => {
      const sentBefore = path.upstream().requests.length
      const run = await runClaudeCode(binary, {
        baseUrl: gateway.url,
        apiKey: gateway.key,
        model: path.model,
        prompt: 'what does note.txt say?',
        workDir,
      })
      expect({ exitCode: run.exitCode, stderr: run.stderr }).toMatchObject({ exitCode: 0 })
      expect(run.stdout).toContain('The tool said')
      expect(run.stdout).toContain(note)
      expect(path.upstream().requests.length - sentBefore).toBe(2)
    }, 120_000)
  }
})
