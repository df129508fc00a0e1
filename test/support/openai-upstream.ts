import { jsonReply, sseResponse, startUpstream, type RecordedRequest, type TestUpstream, type UpstreamHandler } from './upstream.ts'

/**
 * A small OpenAI-compatible server: it answers `/chat/completions` with text, or with a tool call when the
 * request offers tools and the last message is not a tool result. Usage counts are fixed (prompt 11, answer 7,
 * 3 cached) so tests can check billing to the unit.
 */
export const openAiUsage = { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18, prompt_tokens_details: { cached_tokens: 3 } }

export interface OpenAiToolCall {
  id: string
  name: string
  arguments: string
}

export interface OpenAiAnswer {
  text?: string
  toolCall?: OpenAiToolCall
  /** Parallel calls, streamed one after the other by index as OpenAI does. */
  toolCalls?: OpenAiToolCall[]
}

const callsOf = (answer: OpenAiAnswer): OpenAiToolCall[] => answer.toolCalls ?? (answer.toolCall ? [answer.toolCall] : [])

export function openAiAnswer(request: RecordedRequest): OpenAiAnswer {
  const body = request.body
  const last = body.messages.at(-1)
  const wantsTool = Array.isArray(body.tools) && body.tools.length > 0 && last.role !== 'tool' && body.tool_choice !== 'none'
  if (wantsTool) {
    const name = body.tools[0].function.name
    return { toolCall: { id: 'call_upstream_1', name, arguments: '{"city":"Paris","unit":"celsius"}' } }
  }
  const text = last.role === 'tool' ? `The tool said ${last.content}` : 'Hello from upstream'
  return { text }
}

const firstWordLogprobs = {
  content: [
    {
      token: 'Hello',
      logprob: -0.25,
      bytes: [72, 101, 108, 108, 111],
      top_logprobs: [
        { token: 'Hello', logprob: -0.25, bytes: [72, 101, 108, 108, 111] },
        { token: 'Hi', logprob: -1.5, bytes: [72, 105] },
      ],
    },
  ],
  refusal: null,
}

export function chatCompletion(request: RecordedRequest, answer = openAiAnswer(request)) {
  const calls = callsOf(answer)
  return {
    id: 'chatcmpl-upstream1',
    object: 'chat.completion',
    created: 1700000000,
    model: request.body.model,
    choices: [
      {
        // Asked for, log probabilities of the first word (enough to see them carried back).
        index: 0,
        logprobs: request.body.logprobs ? firstWordLogprobs : null,
        message: calls.length
          ? {
              role: 'assistant',
              content: null,
              tool_calls: calls.map((call) => ({
                id: call.id,
                type: 'function',
                function: { name: call.name, arguments: call.arguments },
              })),
            }
          : { role: 'assistant', content: answer.text },
        finish_reason: calls.length ? 'tool_calls' : 'stop',
      },
    ],
    usage: openAiUsage,
  }
}

export function chatChunks(request: RecordedRequest, answer = openAiAnswer(request)): string[] {
  const base = { id: 'chatcmpl-upstream1', object: 'chat.completion.chunk', created: 1700000000, model: request.body.model }
  const chunk = (delta: unknown, finish: string | null = null, logprobs: unknown = null) =>
    `data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta, logprobs, finish_reason: finish }] })}\n\n`
  const events = [chunk({ role: 'assistant', content: '' })]
  const calls = callsOf(answer)
  if (calls.length) {
    calls.forEach((call, index) => {
      const args = call.arguments
      events.push(chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] }))
      events.push(chunk({ tool_calls: [{ index, function: { arguments: args.slice(0, 9) } }] }))
      events.push(chunk({ tool_calls: [{ index, function: { arguments: args.slice(9) } }] }))
    })
    events.push(chunk({}, 'tool_calls'))
  } else {
    // Asked for, the first word's log probabilities ride on its chunk, as OpenAI streams them.
    for (const [index, word] of answer.text!.split(/(?= )/).entries())
      events.push(chunk({ content: word }, null, index === 0 && request.body.logprobs ? firstWordLogprobs : null))
    events.push(chunk({}, 'stop'))
  }
  if (request.body.stream_options?.include_usage) events.push(`data: ${JSON.stringify({ ...base, choices: [], usage: openAiUsage })}\n\n`)
  events.push('data: [DONE]\n\n')
  return events
}

/** `plan` replaces the default answers (a test driving a real CLI decides which tool it calls). */
export function handleOpenAi(plan: (request: RecordedRequest) => OpenAiAnswer = openAiAnswer): UpstreamHandler {
  return (request) => {
    if (request.path !== '/v1/chat/completions') return jsonReply({ error: { message: 'not found', type: 'invalid_request_error' } }, 404)
    const answer = plan(request)
    return request.body.stream ? sseResponse(chatChunks(request, answer)) : jsonReply(chatCompletion(request, answer))
  }
}

export function startOpenAiUpstream(plan?: (request: RecordedRequest) => OpenAiAnswer): TestUpstream {
  return startUpstream(handleOpenAi(plan))
}
