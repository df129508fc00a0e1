import Anthropic from '@anthropic-ai/sdk'
import { history, type Scenario, scenarioSpecs, system, weatherTool } from './conversation.ts'
import {
  describeStainlessError,
  failureOf,
  type MatrixClient,
  recordingFetch,
  type Reply,
  requestTimeoutMs,
  stainlessError,
} from './client.ts'

const typeByStatus: Record<number, string> = { 400: 'invalid_request_error', 429: 'rate_limit_error', 502: 'api_error' }
const describeError = (error: unknown) => describeStainlessError(error, Anthropic.AnthropicError)

function params(model: string, scenario: Scenario): Anthropic.MessageCreateParamsNonStreaming {
  const { prompt, calls, replay } = scenarioSpecs[scenario]
  const messages: Anthropic.MessageParam[] = []
  if (!prompt) for (const turn of history) messages.push({ role: turn.role, content: turn.text })
  else messages.push({ role: 'user', content: prompt })
  if (replay) {
    messages.push({
      role: 'assistant',
      content: calls.map((call) => ({ type: 'tool_use' as const, id: call.id, name: weatherTool.name, input: call.args })),
    })
    messages.push({
      role: 'user',
      content: calls.map((call) => ({ type: 'tool_result' as const, tool_use_id: call.id, content: call.output })),
    })
  }
  const tools =
    scenario === 'history'
      ? undefined
      : [
          {
            name: weatherTool.name,
            description: weatherTool.description,
            input_schema: weatherTool.parameters as Anthropic.Tool.InputSchema,
          },
        ]
  return { model, system, messages, max_tokens: 300, ...(tools && { tools }) }
}

function read(message: Anthropic.Message, sent: string): Reply {
  let text = ''
  const calls: Reply['calls'] = []
  for (const block of message.content) {
    if (block.type === 'text') text += block.text
    else if (block.type === 'tool_use') calls.push({ id: block.id, name: block.name, args: block.input })
  }
  const usage = message.usage
  const cached = usage.cache_read_input_tokens ?? 0
  const written = usage.cache_creation_input_tokens ?? 0
  return {
    text,
    calls,
    stop: message.stop_reason,
    sent,
    usage: { input: usage.input_tokens + cached + written, cached, cacheWrite: written, output: usage.output_tokens, reasoning: 0 },
  }
}

/** `messages.create`, and `messages.stream` whose MessageStream assembles the final message (tool inputs included). */
export function anthropicClient(siteUrl: string, key: string): MatrixClient {
  const recorder = recordingFetch()
  const client = new Anthropic({ baseURL: siteUrl, apiKey: key, maxRetries: 0, timeout: requestTimeoutMs, fetch: recorder.fetch })
  const options = () => ({ signal: AbortSignal.timeout(requestTimeoutMs) })
  return {
    name: 'anthropic',
    native: 'anthropic',
    expresses: { cacheWrite: true, reasoning: false },
    stops: { text: 'end_turn', tool: 'tool_use', length: 'max_tokens' },
    expectedError: (status) => stainlessError(status, typeByStatus[status]!),
    async ask(model, scenario, stream) {
      const body = params(model, scenario)
      const message = stream ? await client.messages.stream(body, options()).finalMessage() : await client.messages.create(body, options())
      return read(message, recorder.sent())
    },
    fail: (model, stream) =>
      failureOf(async (onText) => {
        if (!stream) return client.messages.create(params(model, 'history'), options())
        const runner = client.messages.stream(params(model, 'history'), options())
        runner.on('text', onText)
        return runner.finalMessage()
      }, describeError),
  }
}
