import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { startTestGateway, type TestGateway } from './support/gateway.ts'
import { anthropicClient } from './support/matrix/anthropic-client.ts'
import type { MatrixClient, Reply } from './support/matrix/client.ts'
import {
  costOf,
  history,
  type Scenario,
  scenarios,
  scenarioSpecs,
  system,
  type Tokens,
  weatherTool,
} from './support/matrix/conversation.ts'
import { type Dialect, midstreamMessage } from './support/matrix/faults.ts'
import { geminiClient } from './support/matrix/gemini-client.ts'
import { openAiChatClient, openAiResponsesClient } from './support/matrix/openai-clients.ts'
import { readTranscript, type Transcript } from './support/matrix/received.ts'
import {
  type Column,
  faultyModel,
  httpKinds,
  type MatrixUpstreams,
  startMatrixUpstreams,
  type UpstreamSpec,
  upstreamKinds,
} from './support/matrix/upstreams.ts'

/**
 * Issue 3's matrix: every client protocol, through its official SDK, against every kind of upstream (three real
 * loopback HTTP servers and the built-in mock; a client's own protocol once more with passthrough off), whole and
 * streamed. Each cell checks what a user would notice: the answer, the stop reason, tool calls (one, or two in one
 * turn) with ids and complete arguments, what the upstream received (system prompt, history, tool definitions, tool
 * results matched to their calls, the client's own bytes when forwarded), usage in the client's own fields, and the
 * balance moving by exactly the upstream-reported usage at the price. Then the edges: upstream HTTP errors, a stop at
 * the token limit, and streams that fail or are cut midway, each reaching the client in its own protocol.
 */
const factories: ((url: string, key: string) => MatrixClient)[] = [
  (url, key) => openAiChatClient(`${url}/v1`, key),
  (url, key) => openAiResponsesClient(`${url}/v1`, key),
  anthropicClient,
  geminiClient,
]
/** Each client and its columns: every upstream kind, and its own protocol's upstream once more through the IR. */
const rows: [string, Column[]][] = [
  ['openai-chat', [...upstreamKinds, 'openai-ir']],
  ['openai-responses', upstreamKinds],
  ['anthropic', [...upstreamKinds, 'anthropic-ir']],
  ['gemini', [...upstreamKinds, 'gemini-ir']],
]

let upstreams: MatrixUpstreams
let gateway: TestGateway
const clients = new Map<string, MatrixClient>()

beforeAll(async () => {
  upstreams = startMatrixUpstreams()
  gateway = await startTestGateway({ config: upstreams.config, balanceUsd: '1000' })
  for (const make of factories) {
    const client = make(gateway.url, gateway.key)
    clients.set(client.name, client)
  }
})

afterAll(async () => {
  await gateway?.stop()
  await upstreams?.stop()
})

function expectedText(upstream: UpstreamSpec, scenario: Scenario): string {
  const { prompt, calls, replay } = scenarioSpecs[scenario]
  if (!prompt) return upstream.greeting
  return replay ? upstream.toolAnswer(calls.map((call) => call.output)) : upstream.toolPreamble
}

/** The usage a client should show: the upstream's, less what its protocol has no field for. */
function visibleUsage(usage: Tokens, client: MatrixClient): Tokens {
  return {
    ...usage,
    cacheWrite: client.expresses.cacheWrite ? usage.cacheWrite : 0,
    reasoning: client.expresses.reasoning ? usage.reasoning : 0,
  }
}

const bare = (role: 'user' | 'assistant', text: string) => ({ role, text, calls: [], results: [] })

function expectReceived(received: Transcript, scenario: Scenario): void {
  const { prompt, calls, replay } = scenarioSpecs[scenario]
  expect(received.system).toBe(system)
  if (!prompt) {
    expect(received.turns).toEqual(history.map((turn) => bare(turn.role, turn.text)))
    expect(received.tools).toEqual([])
    return
  }
  expect(received.tools).toEqual([
    {
      name: weatherTool.name,
      parameters: expect.objectContaining({ properties: weatherTool.parameters.properties, required: weatherTool.parameters.required }),
    },
  ])
  if (!replay) {
    expect(received.turns).toEqual([bare('user', prompt)])
    return
  }
  expect(received.turns.map((turn) => turn.role)).toEqual(['user', 'assistant', 'user'])
  const sentCalls = received.turns[1]!.calls
  const results = received.turns[2]!.results
  // Each call with its own arguments, each result with its call's id (or, with no ids at all, in the calls' order).
  expect(sentCalls).toEqual(calls.map((call, index) => ({ id: sentCalls[index]?.id, name: weatherTool.name, args: call.args })))
  if (sentCalls[0]!.id !== undefined) expect(new Set(sentCalls.map((call) => call.id)).size).toBe(calls.length)
  expect(results).toEqual(
    calls.map((call, index) => ({
      id: sentCalls[index]!.id,
      ...(results[index]?.name !== undefined && { name: weatherTool.name }),
      content: call.output,
    })),
  )
}

function expectToolCalls(reply: Reply, upstream: UpstreamSpec, scenario: Scenario, forwarded: boolean): void {
  const calls = upstream.parallel ? scenarioSpecs[scenario].calls : scenarioSpecs[scenario].calls.slice(0, 1)
  // Gemini gives calls no id: the gateway makes one up, except when the Gemini client gets Gemini's own bytes.
  const ids = calls.map((_, index) => upstream.callIds?.[index] ?? (forwarded ? undefined : expect.stringMatching(/^call_\w+$/)))
  expect(reply.calls).toEqual(calls.map((call, index) => ({ id: ids[index], name: weatherTool.name, args: call.args })))
  if (!upstream.callIds && !forwarded) expect(new Set(reply.calls.map((call) => call.id)).size).toBe(calls.length)
}

describe.each(rows)('%s client', (clientName, columns) => {
  describe.each(columns)('→ %s upstream', (column) => {
    for (const stream of [false, true]) {
      test.each(scenarios)(`${stream ? 'streamed' : 'whole'}: %s`, async (scenario) => {
        const client = clients.get(clientName)!
        const upstream = upstreams.specs[column]
        const forwarded = upstream.passthrough && client.native === upstream.kind
        const before = await gateway.settled()
        const seen = upstream.server?.requests.length ?? 0
        const reply = await client.ask(upstream.model, scenario, stream)

        expect(reply.text).toBe(expectedText(upstream, scenario))
        const calling = scenarioSpecs[scenario].prompt !== undefined && !scenarioSpecs[scenario].replay
        expect(reply.stop).toBe(calling ? client.stops.tool : client.stops.text)
        if (calling) expectToolCalls(reply, upstream, scenario, forwarded)
        else expect(reply.calls).toEqual([])

        if (upstream.server) {
          expect(upstream.server.requests.length).toBe(seen + 1)
          const received = upstream.server.requests.at(-1)!
          // Same protocol: the client's bytes, untouched; otherwise a body the gateway wrote in the upstream's format.
          if (forwarded) expect(received.rawBody).toBe(reply.sent)
          else expect(received.rawBody).not.toBe(reply.sent)
          expectReceived(readTranscript(upstream.kind as Dialect, received.body), scenario)
        }

        const usage = upstream.usage ?? reply.usage
        if (!upstream.usage) expect(Math.min(reply.usage.input, reply.usage.output)).toBeGreaterThan(0)
        expect(reply.usage).toEqual(visibleUsage(usage, client))
        const after = await gateway.settled()
        expect(before.balance - after.balance).toBe(costOf(usage))
      })
    }
  })

  describe.each(httpKinds)('→ %s upstream failing or cut short', (kind: Dialect) => {
    const statuses = [
      [500, 502],
      [429, 429],
      [400, 400],
    ] as const
    for (const stream of [false, true]) {
      test.each(statuses)(
        `${stream ? 'streamed' : 'whole'}: upstream HTTP %i reaches the client as its SDK's %i error, nothing billed`,
        async (upstreamStatus, status) => {
          const client = clients.get(clientName)!
          const before = await gateway.settled()
          const failure = await client.fail(faultyModel(kind, String(upstreamStatus) as '500'), stream)
          expect(failure.error).toMatchObject(client.expectedError(status))
          expect(failure.error.message).toContain(`injected ${upstreamStatus}`)
          expect(failure.text).toBe('')
          expect((await gateway.settled()).balance).toBe(before.balance)
        },
      )
    }

    test.each([false, true])("an answer stopped at the token limit says so in the client's stop field (streamed: %p)", async (stream) => {
      const client = clients.get(clientName)!
      const reply = await client.ask(faultyModel(kind, 'length'), 'history', stream)
      expect(reply.text).toBe(upstreams.specs[kind].greeting)
      expect(reply.stop).toBe(client.stops.length)
    })

    test("an error event mid-stream ends the stream with the protocol's error, after the text already sent", async () => {
      const failure = await clients.get(clientName)!.fail(faultyModel(kind, 'midstream'), true)
      expect(failure.text).toBe('Hello')
      expect(failure.error.class).toMatch(/^(APIError|ApiError)$/) // the protocol's error event, thrown by the SDK as such
      expect(failure.error.message).toContain(midstreamMessage)
    })

    test("a stream cut short ends with the protocol's error, never silently", async () => {
      const failure = await clients.get(clientName)!.fail(faultyModel(kind, 'cut'), true)
      expect(failure.text).toBe('Hello')
      // The gateway's own error event, not the SDK noticing by chance that the stream was incomplete.
      expect(failure.error.class).toMatch(/^(APIError|ApiError)$/)
      expect(failure.error.message).toContain('ended before the answer was complete')
    })
  })
})
