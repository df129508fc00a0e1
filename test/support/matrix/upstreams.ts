import { handleAnthropic, upstreamKey } from '../anthropic-upstream.ts'
import { handleGemini } from '../gemini-upstream.ts'
import { handleOpenAi } from '../openai-upstream.ts'
import { startUpstream, type TestUpstream } from '../upstream.ts'
import { history, price, type Tokens } from './conversation.ts'
import { type Dialect, type Fault, faults, withFaults } from './faults.ts'
import { answerTo, planAnthropic, planGemini, planOpenAi } from './plans.ts'

export type UpstreamKind = Dialect | 'mock'

export const upstreamKinds: UpstreamKind[] = ['openai', 'anthropic', 'gemini', 'mock']
export const httpKinds: Dialect[] = ['openai', 'anthropic', 'gemini']

/**
 * The columns of the matrix: each kind of upstream, plus each HTTP kind with passthrough turned off, so that a
 * client of the same protocol also has its request and answer translated through the IR and back (`anthropic-ir`).
 */
export type Column = UpstreamKind | `${Dialect}-ir`

/** What one kind of upstream answers in each scenario, and what it reports; the fakes in test/support decide it. */
export interface UpstreamSpec {
  kind: UpstreamKind
  /** False for the `-ir` columns: never forwarded, even to a client of the same protocol. */
  passthrough: boolean
  /** The gateway model routed to it, with the same id upstream (so a forwarded body needs no rewriting). */
  model: string
  server?: TestUpstream
  greeting: string
  /** Text said before the tool call. */
  toolPreamble: string
  /** The answer to tool results sent back. */
  toolAnswer(outputs: string[]): string
  /** The ids the upstream gives its calls, in order; undefined when it gives none (Gemini) and the gateway must make them. */
  callIds?: string[]
  /** How many calls it makes in one turn at most (the mock makes one). */
  parallel: boolean
  /** Usage the upstream reports, in IR terms; undefined for the mock, which counts its own. */
  usage?: Tokens
}

const models: Record<UpstreamKind, string> = {
  openai: 'gpt-matrix',
  anthropic: 'claude-matrix',
  gemini: 'gemini-matrix',
  mock: 'mock-matrix',
}

/** The gateway model that makes `kind`'s upstream fail with `fault`. */
export function faultyModel(kind: Dialect, fault: Fault): string {
  return `${models[kind]}-${fault}`
}

const specs: Record<UpstreamKind, Omit<UpstreamSpec, 'server' | 'passthrough'>> = {
  // openai-upstream.ts: prompt 11 of which 3 cached, completion 7.
  openai: {
    kind: 'openai',
    model: models.openai,
    greeting: 'Hello from upstream',
    toolPreamble: '',
    toolAnswer: answerTo,
    parallel: true,
    callIds: ['call_upstream_1', 'call_upstream_2'],
    usage: { input: 11, cached: 3, cacheWrite: 0, output: 7, reasoning: 0 },
  },
  // anthropic-upstream.ts: 5 plain input, 4 cache reads, 2 cache writes, 7 output.
  anthropic: {
    kind: 'anthropic',
    model: models.anthropic,
    greeting: 'Hello from upstream',
    toolPreamble: 'Let me check.',
    toolAnswer: answerTo,
    parallel: true,
    callIds: ['toolu_upstream_1', 'toolu_upstream_2'],
    usage: { input: 11, cached: 4, cacheWrite: 2, output: 7, reasoning: 0 },
  },
  // gemini-upstream.ts: prompt 11 of which 3 cached, 5 answer + 2 thought tokens.
  gemini: {
    kind: 'gemini',
    model: models.gemini,
    greeting: 'Hello from gemini upstream',
    toolPreamble: '',
    toolAnswer: answerTo,
    parallel: true,
    usage: { input: 11, cached: 3, cacheWrite: 0, output: 7, reasoning: 2 },
  },
  mock: {
    kind: 'mock',
    model: models.mock,
    greeting: `Hello from the Tollgate mock provider, you said: ${history[2].text}`,
    toolPreamble: '',
    toolAnswer: (outputs) => `Hello from the Tollgate mock provider, the tool answered ${outputs[0]}`,
    callIds: ['call_mock_1'],
    parallel: false,
  },
}

export interface MatrixUpstreams {
  specs: Record<Column, UpstreamSpec>
  /** The gateway config: one provider per upstream, the healthy model and every faulty one of each. */
  config: Record<string, unknown>
  stop(): Promise<void>
}

export function startMatrixUpstreams(): MatrixUpstreams {
  const servers: Record<Dialect, TestUpstream> = {
    openai: startUpstream(withFaults('openai', handleOpenAi(planOpenAi))),
    anthropic: startUpstream(withFaults('anthropic', handleAnthropic(planAnthropic))),
    gemini: startUpstream(withFaults('gemini', handleGemini(planGemini))),
  }
  const http = [
    { name: 'openai', type: 'openai', base_url: `${servers.openai.url}/v1`, api_key: 'openai-secret' },
    { name: 'anthropic', type: 'anthropic', base_url: servers.anthropic.url, api_key: upstreamKey },
    { name: 'gemini', type: 'gemini', base_url: servers.gemini.url, api_key: 'gemini-secret' },
  ]
  const providers = [
    ...http,
    { name: 'mock', type: 'mock' },
    ...http.map((provider) => ({ ...provider, name: `${provider.name}-ir`, passthrough: false })),
  ]
  const model = (id: string, provider: string, upstreamModel = id) => ({
    id,
    provider,
    upstream_model: upstreamModel,
    price,
    max_output_tokens: 1024,
  })
  const configModels = upstreamKinds.map((kind) => model(models[kind], kind))
  for (const kind of httpKinds) configModels.push(model(`${models[kind]}-ir`, `${kind}-ir`, models[kind]))
  for (const kind of httpKinds) for (const fault of faults) configModels.push(model(faultyModel(kind, fault), kind))
  const column = (kind: Dialect, passthrough: boolean): UpstreamSpec => ({
    ...specs[kind],
    passthrough,
    model: passthrough ? models[kind] : `${models[kind]}-ir`,
    server: servers[kind],
  })
  return {
    specs: {
      openai: column('openai', true),
      anthropic: column('anthropic', true),
      gemini: column('gemini', true),
      mock: { ...specs.mock, passthrough: false },
      'openai-ir': column('openai', false),
      'anthropic-ir': column('anthropic', false),
      'gemini-ir': column('gemini', false),
    },
    // One attempt per request and a breaker that never trips: each failure must reach the client as the upstream
    // gave it, however many cells hit the same faulty model.
    config: { providers, models: configModels, routing: { max_attempts: 1, min_requests: 1_000_000 } },
    async stop() {
      for (const server of Object.values(servers)) await server.stop()
    },
  }
}
