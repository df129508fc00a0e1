import type { FinishReason, Usage } from '../../core/ir.ts'
import { randomBase62 } from '../../../../core/ids.ts'
import type { Json } from '../../../../protocols/shared/validate.ts'
import type { ResponsesContext } from './decode-request.ts'
import { type ReasoningSeal, sealReasoning } from './reasoning-envelope.ts'

/**
 * The pieces of a Response object, shared by the JSON answer and the stream so both describe an answer alike.
 * Shapes follow the recorded API captures (test/fixtures/openai-responses).
 */
export type ItemStatus = 'in_progress' | 'completed' | 'incomplete'
export type ResponseStatus = 'in_progress' | 'completed' | 'incomplete' | 'failed'

/** Item ids look like the API's (`msg_…`, `fc_…`, `rs_…`); clients key their bookkeeping on them. */
export function newItemId(prefix: 'msg' | 'fc' | 'rs' | 'resp'): string {
  return `${prefix}_${randomBase62(24)}`
}

export function outputText(text: string): Json {
  return { type: 'output_text', annotations: [], logprobs: [], text }
}

export function messageItem(id: string, status: ItemStatus, texts: string[]): Json {
  return { id, type: 'message', status, content: texts.map(outputText), role: 'assistant' }
}

/** A call goes back under the name the client declared: functions from a `namespace` get their namespace back. */
export function functionCallItem(
  id: string,
  status: ItemStatus,
  call: { id: string; name: string; arguments: string },
  context: ResponsesContext,
): Json {
  const namespaced = context.namespaced.get(call.name)
  return {
    id,
    type: 'function_call',
    status,
    arguments: call.arguments,
    call_id: call.id,
    name: namespaced?.name ?? call.name,
    ...(namespaced && { namespace: namespaced.namespace }),
  }
}

export function summaryText(text: string): Json {
  return { type: 'summary_text', text }
}

/** Reasoning text is shown as its summary (what Responses clients display); a signature rides in encrypted_content. */
export function reasoningItem(id: string, text: string, seal: ReasoningSeal): Json {
  const sealed = sealReasoning(seal)
  return { id, type: 'reasoning', ...(sealed && { encrypted_content: sealed }), summary: text ? [summaryText(text)] : [] }
}

function encodeUsage(usage: Usage): Json {
  return {
    input_tokens: usage.inputTokens,
    input_tokens_details: { cache_write_tokens: usage.cacheWriteTokens, cached_tokens: usage.cachedInputTokens },
    output_tokens: usage.outputTokens,
    output_tokens_details: { reasoning_tokens: usage.reasoningTokens },
    total_tokens: usage.inputTokens + usage.outputTokens,
  }
}

/** A cut-off answer is `incomplete`, with the reason the API gives; everything else that finished is `completed`. */
export function statusOf(reason: FinishReason | undefined): { status: ResponseStatus; incomplete_details: Json | null } {
  if (reason === 'length') return { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } }
  if (reason === 'content-filter') return { status: 'incomplete', incomplete_details: { reason: 'content_filter' } }
  return { status: 'completed', incomplete_details: null }
}

/** The Response object: its own fields around the request settings it echoes. */
export function responseObject(
  base: { id: string; createdAt: number },
  context: ResponsesContext,
  state: { status: ResponseStatus; incomplete_details?: Json | null; error?: Json | null; output: Json[]; usage?: Usage },
): Json {
  const echo = context.echo
  return {
    id: base.id,
    object: 'response',
    created_at: base.createdAt,
    status: state.status,
    background: false,
    error: state.error ?? null,
    incomplete_details: state.incomplete_details ?? null,
    instructions: echo.instructions,
    max_output_tokens: echo.maxOutputTokens,
    model: echo.model,
    output: state.output,
    parallel_tool_calls: echo.parallelToolCalls,
    previous_response_id: null,
    reasoning: echo.reasoning,
    // Nothing is kept, whatever the client asked for: say so.
    store: false,
    temperature: echo.temperature,
    text: echo.text,
    tool_choice: echo.toolChoice,
    tools: echo.tools,
    top_p: echo.topP,
    truncation: echo.truncation,
    usage: state.usage ? encodeUsage(state.usage) : null,
    user: echo.user,
    metadata: echo.metadata,
  }
}
