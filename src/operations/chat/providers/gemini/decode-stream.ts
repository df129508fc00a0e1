import { GatewayError } from '../../../../core/errors.ts'
import type { ContentPart, StreamEvent } from '../../core/ir.ts'
import type { SseEvent } from '../../../../core/sse.ts'
import { StreamBlocks, streamCutShort } from '../stream-blocks.ts'
import type { StreamDecoder } from '../../../../core/provider.ts'
import { decodeGeminiError } from '../../../../providers/gemini/decode-error.ts'
import type { StreamDecoderOptions } from '../../../../providers/http-codec.ts'
import { redactKey } from '../../../../providers/scrub-upstream-text.ts'
import { upstreamCallIds, type GeminiResponse } from './decode-response.ts'
import { decodeGeminiUsage, mapGeminiFinishReason } from './decode-usage.ts'
import { decodeGeminiParts } from '../../wire/gemini/parts.ts'
import { decodeGeminiLogprobs } from '../../wire/gemini/logprobs.ts'
import { unreportedUsage } from '../../../../core/usage.ts'

/**
 * `streamGenerateContent?alt=sse` chunks → IR events. Each chunk is a whole GenerateContentResponse: its parts are
 * decoded like a non-streamed answer, then laid onto open blocks (consecutive text parts continue one text block,
 * thoughts one reasoning block). A functionCall always arrives whole, so it opens, fills and closes its block at once.
 * usageMetadata is cumulative on every chunk that has it and is passed on only when it changes.
 */
export function createGeminiStreamDecoder(options: StreamDecoderOptions = {}): StreamDecoder<StreamEvent> {
  let started = false
  let finished = false
  let calledTools = false
  let lastUsage = ''
  const blocks = new StreamBlocks()

  function layPart(part: ContentPart, events: StreamEvent[]) {
    if (part.type === 'text') {
      events.push({ type: 'text-delta', index: blocks.open('text', events), text: part.text })
    } else if (part.type === 'reasoning') {
      const index = blocks.open('reasoning', events)
      if (part.text) events.push({ type: 'reasoning-delta', index, text: part.text })
      if (part.signature) {
        events.push({ type: 'reasoning-signature', index, signature: part.signature })
        // The signature came on the part after the thoughts: thinking is over.
        if (!part.text) blocks.close(events)
      }
    } else if (part.type === 'tool-call') {
      blocks.close(events)
      calledTools = true
      const index = blocks.take()
      events.push({ type: 'tool-call-start', index, id: part.id, name: part.name })
      events.push({ type: 'tool-call-delta', index, arguments: part.arguments })
      events.push({ type: 'tool-call-end', index })
    }
  }

  function reportUsage(metadata: NonNullable<GeminiResponse['usageMetadata']>, events: StreamEvent[]) {
    // A report the gateway cannot bill from wipes any earlier (partial) one: the meter then estimates.
    const usage = decodeGeminiUsage(metadata) ?? unreportedUsage()
    const key = JSON.stringify(usage)
    if (key !== lastUsage) events.push({ type: 'usage', usage })
    lastUsage = key
  }

  return {
    decode(event: SseEvent): StreamEvent[] {
      let chunk: GeminiResponse
      try {
        chunk = JSON.parse(event.data) as GeminiResponse
      } catch {
        return [{ type: 'error', error: new GatewayError('upstream', 'Upstream sent a malformed stream chunk') }]
      }
      const events: StreamEvent[] = []
      if (chunk.error) {
        blocks.close(events)
        const code = (chunk.error as { code?: unknown }).code
        events.push({
          type: 'error',
          error: decodeGeminiError(typeof code === 'number' ? code : 500, redactKey(event.data, options.apiKey)),
        })
        return events
      }
      if (!started) {
        started = true
        events.push({ type: 'start', id: chunk.responseId ?? '', model: chunk.modelVersion ?? '', created: Math.floor(Date.now() / 1000) })
      }
      const candidate = chunk.candidates?.[0]
      // The prompt's size is on the first chunk already: passed on before the answer, so a client protocol that
      // reports input tokens up front (Anthropic's message_start) can give the exact count.
      if (chunk.usageMetadata) reportUsage(chunk.usageMetadata, events)
      const logprobs = decodeGeminiLogprobs(candidate?.logprobsResult)
      if (logprobs?.length) events.push({ type: 'logprobs', logprobs })
      for (const part of decodeGeminiParts(candidate?.content?.parts ?? [], upstreamCallIds)) layPart(part, events)
      const blocked = !candidate && chunk.promptFeedback?.blockReason
      if ((candidate?.finishReason || blocked) && !finished) {
        finished = true
        blocks.close(events)
        events.push({ type: 'finish', reason: blocked ? 'content-filter' : mapGeminiFinishReason(candidate?.finishReason, calledTools) })
      }
      return events
    },
    finish(): StreamEvent[] {
      if (finished) return []
      const events: StreamEvent[] = []
      blocks.close(events)
      events.push({ type: 'error', error: streamCutShort() })
      return events
    },
  }
}
