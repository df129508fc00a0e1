import type { ChatRequest, StreamEvent } from '../core/ir.ts'
import type { ChatUpstream } from '../core/upstream.ts'

/**
 * `parallel_tool_calls: false` (Anthropic's `disable_parallel_tool_use`) toward an upstream that has no such switch
 * (Gemini): the request goes out as it is and the answer keeps only its first tool call, so the client that asked for
 * one call at a time gets one. The calls dropped were never shown to anyone, so nothing waits for their results.
 */
export function keepFirstToolCall(provider: ChatUpstream): ChatUpstream {
  const single = (request: ChatRequest) => request.parallelToolCalls === false && !!request.tools?.length
  return {
    passthrough: provider.passthrough,
    async complete(request, target, attempt, traceparent) {
      const response = await provider.complete(request, target, attempt, traceparent)
      if (!single(request)) return response
      let seen = false
      response.content = response.content.filter((part) => part.type !== 'tool-call' || (!seen && (seen = true)))
      return response
    },
    async stream(request, target, attempt, traceparent) {
      const events = await provider.stream(request, target, attempt, traceparent)
      return single(request) ? dropLaterCalls(events) : events
    },
  }
}

async function* dropLaterCalls(events: AsyncIterable<StreamEvent>): AsyncGenerator<StreamEvent> {
  let first: number | undefined
  for await (const event of events) {
    if (event.type === 'tool-call-start' || event.type === 'tool-call-delta' || event.type === 'tool-call-end') {
      first ??= event.index
      if (event.index !== first) continue
    }
    yield event
  }
}
