import type { ForwardRequest, Target } from '../../../../core/provider.ts'
import { eventJson, formatSse, type SseEvent } from '../../../../core/sse.ts'
import type { GatewayError } from '../../../../core/errors.ts'
import type { Json } from '../../../../protocols/shared/validate.ts'
import { isObject } from '../../../../protocols/shared/validate.ts'
import { encodeOpenAiError } from '../../../../protocols/openai-chat/encode-error.ts'
import { refuseDuplicateKeys } from '../../../../protocols/shared/duplicate-keys.ts'

/**
 * The client's own Chat Completions body for an OpenAI-compatible upstream. Untouched bytes when nothing needs
 * changing; otherwise only these edits: the upstream's model id, `include_usage` (the gateway always meters a
 * stream from the upstream's own usage report) and the output cap that the hold was sized for.
 */
export function buildChatForward(text: string, body: Json, target: Target): ForwardRequest {
  refuseDuplicateKeys(text)
  const stream = body.stream === true
  // The body as sent upstream, copied only when something changes (the keys it has keep their places, new ones go last).
  let edited: Json | undefined
  if (body.model !== target.upstreamModel) (edited ??= { ...body }).model = target.upstreamModel
  if (stream && !(isObject(body.stream_options) && body.stream_options.include_usage === true)) {
    ;(edited ??= { ...body }).stream_options = { ...(isObject(body.stream_options) ? body.stream_options : {}), include_usage: true }
  }
  // Both spellings of the output cap may come together, and an upstream may obey either: each is capped.
  const limit = target.model.maxOutputTokens
  let capped = false
  for (const field of capFields) {
    if (typeof body[field] !== 'number') continue
    capped = true
    if ((body[field] as number) > limit) (edited ??= { ...body })[field] = limit
  }
  if (!capped) (edited ??= { ...body }).max_completion_tokens = limit
  return { path: '/chat/completions', body: edited ? JSON.stringify(edited) : text, stream }
}

const capFields = ['max_completion_tokens', 'max_tokens']

/**
 * The usage chunk the gateway asked for on the client's behalf: `choices: []` plus `usage`, written as an object.
 * The event is parsed through eventJson, which the stream decoder reads next: one parse between them; the text is
 * searched only for the chunk whose parse says it is the one.
 */
export function isUsageChunk(event: SseEvent): boolean {
  if (event.data === '[DONE]') return false
  let chunk: { choices?: unknown[]; usage?: unknown } | null
  try {
    chunk = eventJson(event) as typeof chunk
  } catch {
    return false
  }
  return (
    chunk !== null &&
    Array.isArray(chunk.choices) &&
    chunk.choices.length === 0 &&
    chunk.usage != null &&
    // OpenAI sends `"usage":null` on every other chunk of such a stream; this one's must be an object.
    hasUsageObject(event.data)
  )
}

/** Whether a chunk's text has `"usage"` followed by an object (`{`), whatever the whitespace around the colon. */
function hasUsageObject(data: string): boolean {
  for (let at = data.indexOf('"usage"'); at !== -1; at = data.indexOf('"usage"', at + 7)) {
    let index = at + 7
    while (data.charCodeAt(index) === 32) index++
    if (data.charCodeAt(index) !== 58) continue // ':'
    index++
    while (data.charCodeAt(index) === 32) index++
    if (data.charCodeAt(index) === 123) return true // '{'
  }
  return false
}

export function encodeRawChatError(error: GatewayError): string {
  return formatSse(JSON.stringify(encodeOpenAiError(error)))
}
