import { jsonReply, sseResponse, startUpstream, type RecordedRequest, type TestUpstream, type UpstreamHandler } from './upstream.ts'

/**
 * A small Anthropic Messages server. It checks `x-api-key` and `anthropic-version` as Anthropic does, answers with
 * a short text then a tool call when tools are offered (unless the last turn carries a tool result or tool_choice is
 * none), thinks first when thinking is enabled, and reports fixed usage with cache reads and writes so tests can
 * check billing to the unit. Models named `fail-overloaded` get a 529, `fail-midstream` an error event mid-stream.
 */
export const anthropicUsage = { input_tokens: 5, cache_read_input_tokens: 4, cache_creation_input_tokens: 2, output_tokens: 7 }
export const upstreamKey = 'ant-test-key-0123456789' // no word of it may be in an error text: pieces of the key are redacted

export interface AnthropicToolCall {
  id: string
  name: string
  input: Record<string, unknown>
}

export interface AnthropicAnswer {
  thinking?: { text: string; signature: string }
  text?: string
  toolCall?: AnthropicToolCall
  /** Parallel calls, one tool_use block each. */
  toolCalls?: AnthropicToolCall[]
}

export type AnswerPlan = (body: any) => AnthropicAnswer

export function planAnthropicAnswer(body: any): AnthropicAnswer {
  const last = body.messages.at(-1)
  const result = Array.isArray(last.content) ? last.content.find((block: any) => block.type === 'tool_result') : undefined
  const thinking = body.thinking?.type === 'enabled' ? { text: 'Thinking it over.', signature: 'sig_upstream_1' } : undefined
  if (body.tools?.length && !result && body.tool_choice?.type !== 'none') {
    return {
      thinking,
      text: 'Let me check.',
      toolCall: { id: 'toolu_upstream_1', name: body.tools[0].name, input: { city: 'Paris', unit: 'celsius' } },
    }
  }
  const said = typeof result?.content === 'string' ? result.content : result?.content?.map((block: any) => block.text ?? '').join('')
  return { thinking, text: result ? `The tool said ${said}` : 'Hello from upstream' }
}

function contentOf(answer: AnthropicAnswer) {
  const content: Record<string, unknown>[] = []
  if (answer.thinking) content.push({ type: 'thinking', thinking: answer.thinking.text, signature: answer.thinking.signature })
  if (answer.text) content.push({ type: 'text', text: answer.text })
  for (const call of answer.toolCalls ?? (answer.toolCall ? [answer.toolCall] : [])) content.push({ type: 'tool_use', ...call })
  return content
}

function message(body: any, answer: AnthropicAnswer) {
  return {
    id: 'msg_upstream_1',
    type: 'message',
    role: 'assistant',
    model: body.model,
    content: contentOf(answer),
    stop_reason: answer.toolCall || answer.toolCalls?.length ? 'tool_use' : 'end_turn',
    stop_sequence: null,
    usage: anthropicUsage,
  }
}

const event = (type: string, data: Record<string, unknown> = {}) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`

function messageEvents(body: any, answer: AnthropicAnswer): string[] {
  const { content, usage: _, ...head } = message(body, answer)
  const events = [
    event('message_start', { message: { ...head, content: [], stop_reason: null, usage: { ...anthropicUsage, output_tokens: 1 } } }),
    event('ping'),
  ]
  content.forEach((block: any, index) => {
    if (block.type === 'thinking') {
      events.push(event('content_block_start', { index, content_block: { type: 'thinking', thinking: '', signature: '' } }))
      events.push(event('content_block_delta', { index, delta: { type: 'thinking_delta', thinking: block.thinking } }))
      events.push(event('content_block_delta', { index, delta: { type: 'signature_delta', signature: block.signature } }))
    } else if (block.type === 'text') {
      events.push(event('content_block_start', { index, content_block: { type: 'text', text: '' } }))
      for (const word of block.text.split(/(?= )/))
        events.push(event('content_block_delta', { index, delta: { type: 'text_delta', text: word } }))
    } else {
      events.push(event('content_block_start', { index, content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} } }))
      const json = JSON.stringify(block.input)
      for (const part of ['', json.slice(0, 7), json.slice(7, 15), json.slice(15)])
        events.push(event('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: part } }))
    }
    events.push(event('content_block_stop', { index }))
  })
  events.push(
    event('message_delta', {
      delta: { stop_reason: head.stop_reason, stop_sequence: null },
      usage: { output_tokens: anthropicUsage.output_tokens },
    }),
  )
  events.push(event('message_stop'))
  return events
}

const anthropicError = (status: number, type: string, message: string) =>
  jsonReply({ type: 'error', error: { type, message }, request_id: 'req_upstream' }, status)

export function handleAnthropic(plan: AnswerPlan = planAnthropicAnswer): UpstreamHandler {
  return (request: RecordedRequest) => {
    const path = request.path.split('?')[0]
    if (path !== '/v1/messages') return anthropicError(404, 'not_found_error', `Unknown path ${path}`)
    if (request.headers['x-api-key'] !== upstreamKey) return anthropicError(401, 'authentication_error', 'invalid x-api-key')
    if (request.headers['anthropic-version'] !== '2023-06-01')
      return anthropicError(400, 'invalid_request_error', 'anthropic-version: header is required')
    const body = request.body
    if (typeof body?.max_tokens !== 'number') return anthropicError(400, 'invalid_request_error', 'max_tokens: Field required')
    if (body.model === 'fail-overloaded') return anthropicError(529, 'overloaded_error', 'Overloaded')
    const answer = plan(body)
    if (!body.stream) return jsonReply(message(body, answer))
    const events = messageEvents(body, answer)
    if (body.model === 'fail-midstream') {
      // Paced, so the text is on its way to the client before the error: sent in one burst, the gateway would see the
      // error before passing anything on and retry instead (the client never got a byte, so it may).
      return sseResponse([...events.slice(0, 4), event('error', { error: { type: 'overloaded_error', message: 'Overloaded' } })], 30)
    }
    return sseResponse(events)
  }
}

export function startAnthropicUpstream(plan?: AnswerPlan): TestUpstream {
  return startUpstream(handleAnthropic(plan))
}
