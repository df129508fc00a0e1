import type { ForwardRequest, Target } from '../../providers/types.ts'
import { formatSse, type SseEvent } from '../../core/sse.ts'
import type { GatewayError } from '../../core/errors.ts'
import type { Json } from '../shared/validate.ts'
import { isObject } from '../shared/validate.ts'
import { encodeOpenAiError } from './encode-error.ts'

/**
 * The client's own Chat Completions body for an OpenAI-compatible upstream. Untouched bytes when nothing needs
 * changing; otherwise only these edits: the upstream's model id, `include_usage` (the gateway always meters a
 * stream from the upstream's own usage report) and the output cap that the hold was sized for.
 */
export function buildChatForward(text: string, body: Json, target: Target): ForwardRequest {
  const stream = body.stream === true
  const edits: Json = {}
  if (body.model !== target.upstreamModel) edits.model = target.upstreamModel
  if (stream && !(isObject(body.stream_options) && body.stream_options.include_usage === true)) {
    edits.stream_options = { ...(isObject(body.stream_options) ? body.stream_options : {}), include_usage: true }
  }
  const limit = target.model.maxOutputTokens
  const field = typeof body.max_completion_tokens === 'number' ? 'max_completion_tokens' : typeof body.max_tokens === 'number' ? 'max_tokens' : undefined
  if (field === undefined) edits.max_completion_tokens = limit
  else if ((body[field] as number) > limit) edits[field] = limit
  const forwarded = Object.keys(edits).length === 0 ? text : JSON.stringify({ ...body, ...edits })
  return { path: '/chat/completions', body: forwarded, stream }
}

/** The usage chunk the gateway asked for on the client's behalf: `choices: []` plus `usage`. */
export function isUsageChunk(event: SseEvent): boolean {
  if (!event.data.includes('"usage"')) return false
  try {
    const chunk = JSON.parse(event.data) as { choices?: unknown[]; usage?: unknown }
    return Array.isArray(chunk.choices) && chunk.choices.length === 0 && chunk.usage != null
  } catch {
    return false
  }
}

export function encodeRawChatError(error: GatewayError): string {
  return formatSse(JSON.stringify(encodeOpenAiError(error)))
}
