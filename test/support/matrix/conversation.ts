/**
 * What every client says in the matrix, in words each SDK adapter writes in its own protocol. The scenarios:
 * - `history`: a system prompt and a three-turn conversation (the upstream must receive all of it, in order);
 * - `tool-call`: one tool offered and a request to use it (the answer is a call with complete arguments);
 * - `tool-result`: the call made and its result sent back (the upstream must see the result matched to the call);
 * - `parallel-calls` / `parallel-results`: the same with two calls in one turn (ids, order and arguments kept apart).
 * Every scenario carries the system prompt.
 */
export type Scenario = 'history' | 'tool-call' | 'tool-result' | 'parallel-calls' | 'parallel-results'

export const scenarios: Scenario[] = ['history', 'tool-call', 'tool-result', 'parallel-calls', 'parallel-results']

export const system = 'You are the matrix test. Answer in one line.'

export const history = [
  { role: 'user', text: 'My name is Ada.' },
  { role: 'assistant', text: 'Nice to meet you, Ada.' },
  { role: 'user', text: 'What is my name?' },
] as const

export const weatherTool = {
  name: 'get_weather',
  description: 'Current weather for a city',
  parameters: {
    type: 'object',
    properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['celsius', 'fahrenheit'] } },
    required: ['city', 'unit'],
  },
}

/** A call the upstream makes, as a client replays it with its result (Gemini clients send no ids: paired by name). */
export interface CallTurn {
  id: string
  args: { city: string; unit: string }
  output: string
}

/** Arguments every upstream (the mock included, from the schema above) puts in its first call. */
const paris: CallTurn = { id: 'call_matrix_1', args: { city: 'Paris', unit: 'celsius' }, output: 'sunny, 21C' }
const rome: CallTurn = { id: 'call_matrix_2', args: { city: 'Rome', unit: 'celsius' }, output: 'rain, 14C' }

export interface ScenarioSpec {
  /** The user's request (undefined for `history`, which sends the history instead). */
  prompt?: string
  /** The calls the upstream makes in answer to the prompt. */
  calls: CallTurn[]
  /** Whether the client sends those calls and their results back (and gets the upstream's answer to them). */
  replay: boolean
}

export const scenarioSpecs: Record<Scenario, ScenarioSpec> = {
  history: { calls: [], replay: false },
  'tool-call': { prompt: 'Use the get_weather tool for Paris.', calls: [paris], replay: false },
  'tool-result': { prompt: 'Use the get_weather tool for Paris.', calls: [paris], replay: true },
  'parallel-calls': { prompt: 'Use the get_weather tool for Paris and for Rome.', calls: [paris, rome], replay: false },
  'parallel-results': { prompt: 'Use the get_weather tool for Paris and for Rome.', calls: [paris, rome], replay: true },
}

/** Token counts in the IR's terms: input includes cached and cache-written tokens, output includes reasoning. */
export interface Tokens {
  input: number
  cached: number
  cacheWrite: number
  output: number
  reasoning: number
}

/** One price for every model, with a distinct figure per token kind so a kind billed as another shows. */
export const price = { input: 3, output: 15, cached_input: 0.3, cache_write: 3.75 }

/** Nano-dollars, counted by hand from the price above (USD per million tokens = nano-dollars per token / 1000). */
export function costOf(tokens: Tokens): number {
  const plain = tokens.input - tokens.cached - tokens.cacheWrite
  return plain * 3000 + tokens.cached * 300 + tokens.cacheWrite * 3750 + tokens.output * 15000
}
