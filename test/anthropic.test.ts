import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import Anthropic from '@anthropic-ai/sdk'
import { startAnthropicSetup, type AnthropicSetup } from './support/anthropic-setup.ts'
import { upstreamKey } from './support/anthropic-upstream.ts'
import type { TestUpstream } from './support/upstream.ts'

const weatherTool = {
  name: 'get_weather',
  description: 'Weather for a city',
  input_schema: { type: 'object' as const, properties: { city: { type: 'string' }, unit: { type: 'string' } }, required: ['city'] },
}
const toolTurns: Anthropic.MessageParam[] = [
  { role: 'user', content: 'weather in Paris?' },
  { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } }] },
  { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'sunny, 21C' }] },
]

let setup: AnthropicSetup
let client: Anthropic

beforeAll(async () => {
  setup = await startAnthropicSetup()
  // Anthropic's base URL is the site root: the SDK adds /v1 itself.
  client = new Anthropic({ baseURL: setup.gateway.url, apiKey: setup.gateway.key, maxRetries: 0 })
})

afterAll(() => setup.stop())

/** What each kind of upstream answers, as the Anthropic client must see it whatever the path in between. */
interface Expected {
  text: string
  /** Text the upstream says before its tool call, if any. */
  preamble?: string
  toolId: string
  toolInput: Record<string, unknown>
  toolAnswer: string
  /** Usage as the client sees it; undefined when the mock's own count is used. */
  usage?: { input_tokens: number; cache_read_input_tokens: number; cache_creation_input_tokens: number; output_tokens: number }
  /** Nano-dollars billed for one answer; a function of the usage for the mock. */
  cost: (usage: Anthropic.Usage) => number
  upstream: () => TestUpstream | undefined
  /** The tool result as the upstream received it, in its own protocol. */
  sentResult?: (body: any) => unknown
}

const claudeUsage = { input_tokens: 5, cache_read_input_tokens: 4, cache_creation_input_tokens: 2, output_tokens: 7 }
const claude: Omit<Expected, 'upstream'> = {
  text: 'Hello from upstream',
  preamble: 'Let me check.',
  toolId: 'toolu_upstream_1',
  toolInput: { city: 'Paris', unit: 'celsius' },
  toolAnswer: 'The tool said sunny, 21C',
  usage: claudeUsage,
  // 5 plain input at $3/M, 4 cache reads at $0.30/M, 2 cache writes at $3.75/M, 7 output at $15/M.
  cost: () => 5 * 3000 + 4 * 300 + 2 * 3750 + 7 * 15000,
  sentResult: (body) => body.messages.at(-1).content,
}

const expectations: Record<string, Expected> = {
  'mock-1': {
    text: 'Hello from the Tollgate mock provider, you said: hi there',
    toolId: 'call_mock_1',
    toolInput: { city: 'Paris' },
    toolAnswer: 'Hello from the Tollgate mock provider, the tool answered sunny, 21C',
    cost: (usage) => usage.input_tokens * 1000 + usage.output_tokens * 2000,
    upstream: () => undefined,
  },
  'gpt-up': {
    text: 'Hello from upstream',
    toolId: 'call_upstream_1',
    toolInput: { city: 'Paris', unit: 'celsius' },
    toolAnswer: 'The tool said sunny, 21C',
    // OpenAI's prompt_tokens 11 include 3 cached: Anthropic reports them apart.
    usage: { input_tokens: 8, cache_read_input_tokens: 3, cache_creation_input_tokens: 0, output_tokens: 7 },
    cost: () => 8 * 1250 + 3 * 125 + 7 * 10000,
    upstream: () => setup.openAiUpstream,
    sentResult: (body) => body.messages.at(-1),
  },
  'claude-pass': { ...claude, upstream: () => setup.anthropicUpstream },
  'claude-ir': { ...claude, upstream: () => setup.anthropicUpstream },
}

for (const [model, expected] of Object.entries(expectations)) {
  describe(`Anthropic SDK → ${model}`, () => {
    test('messages.create: text answer, stop reason, usage, and exactly that usage billed', async () => {
      const before = await setup.gateway.settled()
      const message = await client.messages.create({
        model,
        max_tokens: 200,
        system: 'Be brief.',
        messages: [{ role: 'user', content: 'hi there' }],
      })
      expect(message.type).toBe('message')
      expect(message.role).toBe('assistant')
      expect(message.content as unknown[]).toEqual([{ type: 'text', text: expected.text }])
      expect(message.stop_reason).toBe('end_turn')
      if (expected.usage) expect(message.usage).toMatchObject(expected.usage)
      const after = await setup.gateway.settled()
      expect(before.balance - after.balance).toBe(expected.cost(message.usage))
    })

    test('messages.stream: finalMessage has the text and the tool call with its complete input', async () => {
      const stream = client.messages.stream({
        model,
        max_tokens: 200,
        tools: [weatherTool],
        messages: [{ role: 'user', content: 'Use get_weather: weather in Paris?' }],
      })
      let streamedText = ''
      stream.on('text', (delta) => {
        streamedText += delta
      })
      const final = await stream.finalMessage()
      const toolUse = final.content.find((block) => block.type === 'tool_use')
      expect(toolUse).toMatchObject({ id: expected.toolId, name: 'get_weather', input: expected.toolInput })
      expect(streamedText).toBe(expected.preamble ?? '')
      expect(final.stop_reason).toBe('tool_use')
      if (expected.usage) expect(final.usage).toMatchObject(expected.usage)
    })

    test('a tool result sent back is understood upstream and answered', async () => {
      const message = await client.messages.create({ model, max_tokens: 200, tools: [weatherTool], messages: toolTurns })
      expect(message.content[0]).toMatchObject({ type: 'text', text: expected.toolAnswer })
      const upstream = expected.upstream()
      if (upstream && expected.sentResult) {
        const sent = expected.sentResult(upstream.requests.at(-1)!.body)
        if (model === 'gpt-up') expect(sent).toMatchObject({ role: 'tool', tool_call_id: 'toolu_1', content: 'sunny, 21C' })
        else expect(sent).toEqual([{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'sunny, 21C' }])
      }
    })

    test('a streamed answer is billed exactly what its usage says', async () => {
      const before = await setup.gateway.settled()
      const final = await client.messages
        .stream({ model, max_tokens: 200, messages: [{ role: 'user', content: 'hi there' }] })
        .finalMessage()
      expect(final.content as unknown[]).toEqual([{ type: 'text', text: expected.text }])
      const after = await setup.gateway.settled()
      expect(before.balance - after.balance).toBe(expected.cost(final.usage))
    })
  })
}

describe('the passthrough path to an Anthropic upstream', () => {
  test('forwards the beta query and header, renames the model, caps max_tokens, and returns upstream bytes', async () => {
    const message = await client.beta.messages.create(
      {
        model: 'claude-pass',
        max_tokens: 4096,
        betas: ['interleaved-thinking-2025-05-14'],
        messages: [{ role: 'user', content: 'hi' }],
      },
      { query: { beta: 'true' } },
    ) // what Claude Code sends (this SDK version no longer adds it)
    expect(message.id).toBe('msg_upstream_1')
    const sent = setup.anthropicUpstream.requests.at(-1)!
    expect(sent.path).toBe('/v1/messages?beta=true')
    expect(sent.headers['anthropic-beta']).toBe('interleaved-thinking-2025-05-14')
    expect(sent.headers['x-api-key']).toBe(upstreamKey)
    expect(sent.body.model).toBe('claude-real')
    expect(sent.body.max_tokens).toBe(2048)
  })

  test('leaves the body byte for byte as the client sent it when nothing needs changing', async () => {
    const exact = '{"model": "claude-same",  "max_tokens": 10, "messages": [{"role": "user", "content": "hi"}]}'
    const response = await fetch(`${setup.gateway.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': setup.gateway.key, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
      body: exact,
    })
    expect(response.status).toBe(200)
    expect(response.headers.get('request-id')).toStartWith('req_')
    expect(setup.anthropicUpstream.requests.at(-1)!.rawBody).toBe(exact)
  })

  test('thinking blocks and their signatures reach the client, and go back upstream on the next turn', async () => {
    for (const model of ['claude-pass', 'claude-ir']) {
      const first = await client.messages
        .stream({
          model,
          max_tokens: 2048,
          thinking: { type: 'enabled', budget_tokens: 1024 },
          messages: [{ role: 'user', content: 'think' }],
        })
        .finalMessage()
      expect(first.content[0] as unknown).toEqual({ type: 'thinking', thinking: 'Thinking it over.', signature: 'sig_upstream_1' })
      await client.messages.create({
        model,
        max_tokens: 2048,
        thinking: { type: 'enabled', budget_tokens: 1024 },
        messages: [
          { role: 'user', content: 'think' },
          { role: 'assistant', content: first.content as Anthropic.ContentBlockParam[] },
          { role: 'user', content: 'again' },
        ],
      })
      const sent = setup.anthropicUpstream.requests.at(-1)!.body
      expect(sent.messages[1].content[0]).toEqual({ type: 'thinking', thinking: 'Thinking it over.', signature: 'sig_upstream_1' })
    }
  })
})
