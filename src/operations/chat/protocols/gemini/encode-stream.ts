import type { FinishReason, StreamEvent, TokenLogprob, Usage } from '../../core/ir.ts'
import { formatSse } from '../../../../core/sse.ts'
import { encodeGeminiLogprobs } from '../../wire/gemini/logprobs.ts'
import type { GeminiPart } from '../../wire/gemini/parts.ts'
import { parseToolArguments } from '../../core/tool-calls.ts'
import { encodeGeminiError } from '../../../../protocols/gemini/encode-error.ts'
import { encodeFinishReason, encodeUsageMetadata } from './encode-usage.ts'

/** `alt=sse` frames each chunk as an SSE event; without it Gemini streams one JSON array, element by element. */
export type StreamFormat = 'sse' | 'json'

function framer(format: StreamFormat) {
  let first = true
  return {
    frame(body: unknown): string {
      const json = JSON.stringify(body)
      if (format === 'sse') return formatSse(json)
      const text = first ? `[${json}` : `,\r\n${json}`
      first = false
      return text
    },
    close: (): string => (format === 'sse' ? '' : first ? '[]' : ']'),
  }
}

/**
 * IR events → streamGenerateContent chunks. Text and thoughts go out as they come; a function call goes out whole
 * once its argument fragments are complete (Gemini clients read `args` as an object, never a fragment). A thought
 * signature rides on the part after the thinking, as Gemini sends it. The last chunk carries finishReason and
 * usageMetadata; every chunk carries modelVersion and responseId. A failure ends the stream with `{"error":…}`.
 */
export async function* encodeGeminiStream(
  events: AsyncIterable<StreamEvent>,
  model: string,
  responseId: string,
  format: StreamFormat,
): AsyncGenerator<string> {
  const out = framer(format)
  const calls = new Map<number, { id: string; name: string; arguments: string }>()
  let signature: string | undefined
  let finish: FinishReason | undefined
  let usage: Usage | undefined
  let id = responseId
  /** Log probabilities come before the text they describe: they ride on its chunk's candidate, as Gemini sends them. */
  let logprobs: TokenLogprob[] | undefined

  const chunk = (part: GeminiPart, extra: Record<string, unknown> = {}) => {
    if (signature && !part.thought) {
      part.thoughtSignature = signature
      signature = undefined
    }
    const { finishReason, ...rest } = extra
    const carried = !part.thought && !part.functionCall && logprobs ? encodeGeminiLogprobs(logprobs) : undefined
    if (carried) logprobs = undefined
    const candidate = {
      content: { role: 'model', parts: [part] },
      ...(finishReason !== undefined && { finishReason }),
      ...(carried && { logprobsResult: carried }),
      index: 0,
    }
    return out.frame({ candidates: [candidate], ...rest, modelVersion: model, responseId: id })
  }
  const callPart = (call: { id: string; name: string; arguments: string }): GeminiPart => ({
    functionCall: { id: call.id, name: call.name, args: parseToolArguments(call.arguments) },
  })

  for await (const event of events) {
    switch (event.type) {
      case 'start':
        if (event.id) id = event.id
        break
      case 'text-delta':
        if (event.text) yield chunk({ text: event.text })
        break
      case 'reasoning-delta':
        if (event.text) yield chunk({ text: event.text, thought: true })
        break
      case 'reasoning-signature':
        signature = event.signature
        break
      case 'tool-call-start':
        calls.set(event.index, { id: event.id, name: event.name, arguments: '' })
        break
      case 'tool-call-delta': {
        const call = calls.get(event.index)
        if (call) call.arguments += event.arguments
        break
      }
      case 'tool-call-end': {
        const call = calls.get(event.index)
        calls.delete(event.index)
        if (call) yield chunk(callPart(call))
        break
      }
      case 'finish':
        finish = event.reason
        break
      case 'usage':
        usage = event.usage
        break
      case 'logprobs':
        logprobs = logprobs ? [...logprobs, ...event.logprobs] : event.logprobs
        break
      case 'error':
        yield out.frame(encodeGeminiError(event.error)) + out.close()
        return
    }
  }
  // Calls left open by an upstream that never closed them are still whole enough to send.
  for (const call of calls.values()) yield chunk(callPart(call))
  yield chunk({ text: '' }, { finishReason: encodeFinishReason(finish), ...(usage && { usageMetadata: encodeUsageMetadata(usage) }) }) +
    out.close()
}
