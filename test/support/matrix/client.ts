import type { Scenario, Tokens } from './conversation.ts'
import type { UpstreamKind } from './upstreams.ts'

/** An answer as a user of one SDK sees it, gathered by that SDK's own means (stream helpers and accumulators). */
export interface Reply {
  /** The visible answer text (thinking left out). */
  text: string
  calls: { id?: string; name: string; args: unknown }[]
  /** The protocol's own stop field (`finish_reason`, `stop_reason`, `status`, `finishReason`). */
  stop: string | null | undefined
  /** The protocol's usage fields, read back into IR terms (see `expresses` for what it cannot say). */
  usage: Tokens
  /** The exact request body the SDK sent. */
  sent: string
}

/** An error as the SDK raised it. */
export interface SdkError {
  class: string
  status?: number
  /** The protocol's error type (OpenAI `type`, Anthropic `error.type`, Google `status`). */
  type?: string
  message: string
}

export interface Failure {
  error: SdkError
  /** Text the client received before the error. */
  text: string
}

export interface MatrixClient {
  name: string
  /** The upstream that speaks this protocol, reached by forwarding the client's bytes. */
  native?: UpstreamKind
  /** Which usage details the protocol has fields for. */
  expresses: { cacheWrite: boolean; reasoning: boolean }
  /** The stop field of a text answer, of a tool call, and of an answer cut by the output token limit. */
  stops: { text: string; tool: string; length: string }
  ask(model: string, scenario: Scenario, stream: boolean): Promise<Reply>
  /** Asks the `history` scenario of a model that fails; throws if it does not. */
  fail(model: string, stream: boolean): Promise<Failure>
  /** The SDK class and error type for a gateway error of this HTTP status. */
  expectedError(status: number): { class: string; status: number; type: string }
}

/** A per-request guard: nothing in the matrix may hang, whatever the gateway does. */
export const requestTimeoutMs = 5_000

/** A fetch that remembers the last body it sent, so a test can compare it with what the upstream received. */
export function recordingFetch(): { fetch: typeof fetch; sent: () => string } {
  let last = ''
  const record = (async (input: RequestInfo | URL, init?: RequestInit) => {
    last = typeof init?.body === 'string' ? init.body : ''
    return fetch(input, init)
  }) as typeof fetch
  return { fetch: record, sent: () => last }
}

/** The failure a call ended with, or an error saying it did not fail. */
export async function failureOf(call: (onText: (text: string) => void) => Promise<unknown>, describe: (error: unknown) => SdkError): Promise<Failure> {
  let text = ''
  try {
    await call((delta) => { text += delta })
  } catch (error) {
    return { error: describe(error), text }
  }
  throw new Error(`expected the request to fail, but it answered (text so far: ${JSON.stringify(text)})`)
}

export function parseArgs(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return { unparseable: text }
  }
}
