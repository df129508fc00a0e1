import type { ChatResponse, ContentPart } from '../../core/ir.ts'
import { emptyUsage } from '../../core/ir.ts'
import { parseToolArguments } from '../../core/tool-calls.ts'
import { encodeAnthropicUsage } from './encode-usage.ts'
import { encodeStopReason } from './map-stop-reason.ts'

/** Anthropic's message ids start with `msg_`; clients do not check, but logs and tools look for it. */
export function messageId(id: string): string {
  return id.startsWith('msg_') ? id : `msg_${id}`
}

function encodeBlock(part: ContentPart): Record<string, unknown> | undefined {
  switch (part.type) {
    case 'text':
      return { type: 'text', text: part.text }
    case 'reasoning':
      return part.redacted !== undefined
        ? { type: 'redacted_thinking', data: part.redacted }
        : { type: 'thinking', thinking: part.text, signature: part.signature ?? '' }
    case 'tool-call':
      return { type: 'tool_use', id: part.id, name: part.name, input: parseToolArguments(part.arguments) }
    default:
      return undefined
  }
}

/** IR response → an Anthropic Message. `model` is the gateway's id, the one the client asked for. */
export function encodeMessageResponse(response: ChatResponse, model: string) {
  return {
    id: messageId(response.id),
    type: 'message',
    role: 'assistant',
    model,
    content: response.content.map(encodeBlock).filter((block) => block !== undefined),
    stop_reason: encodeStopReason(response.finishReason),
    stop_sequence: null,
    usage: encodeAnthropicUsage(response.usage ?? emptyUsage()),
  }
}
