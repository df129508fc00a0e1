/**
 * What every client says in the matrix, in words each SDK adapter writes in its own protocol. Three scenarios:
 * - `history`: a system prompt and a three-turn conversation (the upstream must receive all of it, in order);
 * - `tool-call`: one tool offered and a request to use it (the answer is a call with complete arguments);
 * - `tool-result`: the call made and its result sent back (the upstream must see the result matched to the call).
 */
export type Scenario = 'history' | 'tool-call' | 'tool-result'

export const scenarios: Scenario[] = ['history', 'tool-call', 'tool-result']

export const system = 'You are the matrix test. Answer in one line.'

export const history = [
  { role: 'user', text: 'My name is Ada.' },
  { role: 'assistant', text: 'Nice to meet you, Ada.' },
  { role: 'user', text: 'What is my name?' },
] as const

export const toolPrompt = 'Use the get_weather tool for Paris.'

export const weatherTool = {
  name: 'get_weather',
  description: 'Current weather for a city',
  parameters: {
    type: 'object',
    properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['celsius', 'fahrenheit'] } },
    required: ['city', 'unit'],
  },
}

/** The arguments every upstream (the mock included, from the schema above) puts in its call. */
export const weatherArgs = { city: 'Paris', unit: 'celsius' }

/** The call a client replays in `tool-result`; Gemini clients send no ids, so theirs is paired by name. */
export const clientCallId = 'call_matrix_1'
export const toolOutput = 'sunny, 21C'

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
