import { jsonReply, sseResponse, type RecordedRequest, type UpstreamHandler } from '../upstream.ts'

/** The wire dialects of the loopback upstreams. */
export type Dialect = 'openai' | 'anthropic' | 'gemini'

/**
 * Faults chosen by the upstream model's name, so one server answers healthy and failing models side by side:
 * `…-500` / `-429` / `-400` answer that HTTP status with the vendor's error body; `…-midstream` streams the start of
 * the normal answer (through its first text, "Hello") and then the vendor's own error event; `…-cut` streams the
 * same start and then simply ends the body, as a dropped connection would; `…-length` gives the normal answer with
 * the vendor's "stopped at the token limit" reason instead of a natural stop.
 */
export type Fault = '500' | '429' | '400' | 'midstream' | 'cut' | 'length'

export const faults: Fault[] = ['500', '429', '400', 'midstream', 'cut', 'length']

export const midstreamMessage = 'upstream fell over'

function modelOf(dialect: Dialect, request: RecordedRequest): string {
  if (dialect !== 'gemini') return String(request.body?.model ?? '')
  return /^\/v1beta\/models\/([^:]+):/.exec(request.path)?.[1] ?? ''
}

const googleStatus: Record<number, string> = { 400: 'INVALID_ARGUMENT', 429: 'RESOURCE_EXHAUSTED', 500: 'INTERNAL' }
const errorType: Record<number, string> = { 400: 'invalid_request_error', 429: 'rate_limit_error', 500: 'api_error' }

function httpError(dialect: Dialect, status: number): Response {
  const message = `injected ${status}`
  if (dialect === 'gemini') return jsonReply({ error: { code: status, message, status: googleStatus[status] } }, status)
  if (dialect === 'anthropic')
    return jsonReply({ type: 'error', error: { type: errorType[status], message }, request_id: 'req_fault' }, status)
  const type = status === 500 ? 'server_error' : errorType[status]
  return jsonReply({ error: { message, type, param: null, code: null } }, status)
}

function errorEvent(dialect: Dialect): string {
  if (dialect === 'anthropic')
    return `event: error\ndata: ${JSON.stringify({ type: 'error', error: { type: 'overloaded_error', message: midstreamMessage } })}\n\n`
  if (dialect === 'gemini')
    return `data: ${JSON.stringify({ error: { code: 503, message: midstreamMessage, status: 'UNAVAILABLE' } })}\r\n\r\n`
  return `data: ${JSON.stringify({ error: { message: midstreamMessage, type: 'server_error', param: null, code: null } })}\n\n`
}

/** The events of a healthy streamed answer up to and including the first one that carries text. */
async function answerStart(response: Response): Promise<string[]> {
  const events = (await response.text()).split(/(?<=\n\n|\r\n\r\n)/)
  const first = events.findIndex((event) => event.includes('Hello'))
  if (first === -1) throw new Error('the healthy answer has no "Hello" to fail after')
  return events.slice(0, first + 1)
}

/** Each vendor's natural stop, and its stop at the token limit, as they appear in its JSON. */
const stops: Record<Dialect, [string, string]> = {
  openai: ['"finish_reason":"stop"', '"finish_reason":"length"'],
  anthropic: ['"stop_reason":"end_turn"', '"stop_reason":"max_tokens"'],
  gemini: ['"finishReason":"STOP"', '"finishReason":"MAX_TOKENS"'],
}

async function stopAtLimit(dialect: Dialect, response: Response): Promise<Response> {
  const [natural, limit] = stops[dialect]
  const body = (await response.text()).replaceAll(natural, limit)
  return new Response(body, { status: response.status, headers: response.headers })
}

/** `handler` with the faults above; every other model gets its healthy answer. */
export function withFaults(dialect: Dialect, handler: UpstreamHandler): UpstreamHandler {
  return async (request, raw) => {
    const fault = faults.find((name) => modelOf(dialect, request).endsWith(`-${name}`))
    if (fault === '500' || fault === '429' || fault === '400') return httpError(dialect, Number(fault))
    const response = await handler(request, raw)
    if (fault === 'length') return stopAtLimit(dialect, response)
    if (fault !== 'midstream' && fault !== 'cut') return response
    const start = await answerStart(response)
    return sseResponse(fault === 'midstream' ? [...start, errorEvent(dialect)] : start)
  }
}
