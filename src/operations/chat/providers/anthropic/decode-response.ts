import { GatewayError } from '../../../../core/errors.ts'
import type { ChatResponse, ContentPart } from '../../core/ir.ts'
import { decodeAnthropicUsage, type AnthropicUsage } from './decode-usage.ts'
import { unwrapJsonAnswer } from './json-answer.ts'
import { mapAnthropicStopReason } from './map-stop-reason.ts'

interface AnthropicBlock {
  type: string
  text?: string
  thinking?: string
  signature?: string
  data?: string
  id?: string
  name?: string
  input?: unknown
}

interface AnthropicMessage {
  id?: string
  model?: string
  content?: AnthropicBlock[]
  stop_reason?: string | null
  usage?: AnthropicUsage | null
}

/** One response block → an IR part; server-side tool blocks (web search results…) have no IR form and are left out. */
function decodeAnthropicBlock(block: AnthropicBlock): ContentPart | undefined {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: block.text ?? '' }
    case 'thinking':
      return { type: 'reasoning', text: block.thinking ?? '', signature: block.signature || undefined }
    case 'redacted_thinking':
      return { type: 'reasoning', text: '', redacted: block.data ?? '' }
    case 'tool_use':
      return { type: 'tool-call', id: block.id ?? '', name: block.name ?? '', arguments: JSON.stringify(block.input ?? {}) }
    default:
      return undefined
  }
}

export function decodeAnthropicResponse(body: unknown): ChatResponse {
  const message = body as AnthropicMessage
  if (!message || typeof message !== 'object' || !Array.isArray(message.content)) {
    throw new GatewayError('upstream', 'Upstream response has no content')
  }
  const content: ContentPart[] = []
  for (const block of message.content) {
    const part = decodeAnthropicBlock(block)
    if (part) content.push(part)
  }
  const json = unwrapJsonAnswer(content)
  const calledTools = json.content.some((part) => part.type === 'tool-call')
  return {
    id: message.id ?? '',
    model: message.model ?? '',
    created: Math.floor(Date.now() / 1000),
    content: json.content,
    // The forced JSON answer call is the answer itself, not a call the client must run.
    finishReason:
      json.unwrapped && !calledTools && message.stop_reason === 'tool_use' ? 'stop' : mapAnthropicStopReason(message.stop_reason),
    usage: message.usage ? decodeAnthropicUsage(message.usage) : undefined,
  }
}
