import OpenAI from 'openai'
import { history, type Scenario, scenarioSpecs, system, type Tokens, weatherTool } from './conversation.ts'
import {
  describeStainlessError,
  failureOf,
  type MatrixClient,
  parseArgs,
  recordingFetch,
  type Reply,
  requestTimeoutMs,
  stainlessError,
} from './client.ts'

const typeByStatus: Record<number, string> = { 400: 'invalid_request_error', 429: 'rate_limit_error', 502: 'upstream_error' }
const describeError = (error: unknown) => describeStainlessError(error, OpenAI.OpenAIError)

function connect(baseUrl: string, key: string) {
  const recorder = recordingFetch()
  return {
    client: new OpenAI({ baseURL: baseUrl, apiKey: key, maxRetries: 0, timeout: requestTimeoutMs, fetch: recorder.fetch }),
    sent: recorder.sent,
  }
}

const options = () => ({ signal: AbortSignal.timeout(requestTimeoutMs) })
const expectedError = (status: number) => stainlessError(status, typeByStatus[status]!)

function chatParams(model: string, scenario: Scenario): Omit<OpenAI.Chat.ChatCompletionCreateParamsNonStreaming, 'stream'> {
  const { prompt, calls, replay } = scenarioSpecs[scenario]
  const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [{ role: 'system', content: system }]
  if (!prompt) for (const turn of history) messages.push({ role: turn.role, content: turn.text })
  else messages.push({ role: 'user', content: prompt })
  if (replay) {
    const toolCalls = calls.map((call) => ({
      id: call.id,
      type: 'function' as const,
      function: { name: weatherTool.name, arguments: JSON.stringify(call.args) },
    }))
    messages.push({ role: 'assistant', content: null, tool_calls: toolCalls })
    for (const call of calls) messages.push({ role: 'tool', tool_call_id: call.id, content: call.output })
  }
  const tools = scenario === 'history' ? undefined : [{ type: 'function' as const, function: weatherTool }]
  return { model, messages, max_completion_tokens: 300, ...(tools && { tools }) }
}

function readChat(completion: OpenAI.Chat.ChatCompletion, sent: string): Reply {
  const choice = completion.choices[0]!
  const usage = completion.usage!
  const calls = (choice.message.tool_calls ?? []).map((call) => {
    if (call.type !== 'function') throw new Error(`unexpected ${call.type} tool call`)
    return { id: call.id, name: call.function.name, args: parseArgs(call.function.arguments) }
  })
  const tokens: Tokens = {
    input: usage.prompt_tokens,
    cached: usage.prompt_tokens_details?.cached_tokens ?? 0,
    cacheWrite: 0,
    output: usage.completion_tokens,
    reasoning: usage.completion_tokens_details?.reasoning_tokens ?? 0,
  }
  if (usage.total_tokens !== usage.prompt_tokens + usage.completion_tokens)
    throw new Error(`total_tokens ${usage.total_tokens} is not the sum`)
  return { text: choice.message.content ?? '', calls, stop: choice.finish_reason, usage: tokens, sent }
}

/** `chat.completions.create`, and `chat.completions.stream` whose helper assembles the final completion. */
export function openAiChatClient(baseUrl: string, key: string): MatrixClient {
  const { client, sent } = connect(baseUrl, key)
  return {
    name: 'openai-chat',
    native: 'openai',
    expresses: { cacheWrite: false, reasoning: true },
    stops: { text: 'stop', tool: 'tool_calls', length: 'length' },
    expectedError,
    async ask(model, scenario, stream) {
      const params = chatParams(model, scenario)
      if (!stream) return readChat(await client.chat.completions.create(params, options()), sent())
      const final = await client.chat.completions
        .stream({ ...params, stream_options: { include_usage: true } }, options())
        .finalChatCompletion()
      return readChat(final, sent())
    },
    fail: (model, stream) =>
      failureOf(async (onText) => {
        const params = chatParams(model, 'history')
        if (!stream) return client.chat.completions.create(params, options())
        const runner = client.chat.completions.stream({ ...params, stream_options: { include_usage: true } }, options())
        runner.on('content', onText)
        return runner.finalChatCompletion()
      }, describeError),
  }
}

function responsesParams(model: string, scenario: Scenario): Omit<OpenAI.Responses.ResponseCreateParamsNonStreaming, 'stream'> {
  const { prompt, calls, replay } = scenarioSpecs[scenario]
  const input: OpenAI.Responses.ResponseInputItem[] = []
  if (!prompt) for (const turn of history) input.push({ role: turn.role, content: turn.text })
  else input.push({ role: 'user', content: prompt })
  if (replay) {
    for (const call of calls)
      input.push({ type: 'function_call', call_id: call.id, name: weatherTool.name, arguments: JSON.stringify(call.args) })
    for (const call of calls) input.push({ type: 'function_call_output', call_id: call.id, output: call.output })
  }
  const tools = scenario === 'history' ? undefined : [{ type: 'function' as const, ...weatherTool, strict: false }]
  return { model, instructions: system, input, max_output_tokens: 300, ...(tools && { tools }) }
}

function readResponse(response: OpenAI.Responses.Response, sent: string): Reply {
  const usage = response.usage!
  const details = usage.input_tokens_details as { cached_tokens: number; cache_write_tokens?: number }
  const calls = response.output.flatMap((item) =>
    item.type === 'function_call' ? [{ id: item.call_id, name: item.name, args: parseArgs(item.arguments) }] : [],
  )
  const tokens: Tokens = {
    input: usage.input_tokens,
    cached: details.cached_tokens,
    cacheWrite: details.cache_write_tokens ?? 0,
    output: usage.output_tokens,
    reasoning: usage.output_tokens_details.reasoning_tokens,
  }
  if (usage.total_tokens !== usage.input_tokens + usage.output_tokens) throw new Error(`total_tokens ${usage.total_tokens} is not the sum`)
  return { text: response.output_text, calls, stop: response.status, usage: tokens, sent }
}

/** `responses.create`, and `responses.stream` whose helper assembles the final response. */
export function openAiResponsesClient(baseUrl: string, key: string): MatrixClient {
  const { client, sent } = connect(baseUrl, key)
  return {
    name: 'openai-responses',
    expresses: { cacheWrite: true, reasoning: true },
    stops: { text: 'completed', tool: 'completed', length: 'incomplete' },
    expectedError,
    async ask(model, scenario, stream) {
      const params = responsesParams(model, scenario)
      if (!stream) return readResponse(await client.responses.create(params, options()), sent())
      return readResponse(await client.responses.stream(params, options()).finalResponse(), sent())
    },
    fail: (model, stream) =>
      failureOf(async (onText) => {
        const params = responsesParams(model, 'history')
        if (!stream) return client.responses.create(params, options())
        const runner = client.responses.stream(params, options())
        runner.on('response.output_text.delta', (event) => onText(event.delta))
        return runner.finalResponse()
      }, describeError),
  }
}
