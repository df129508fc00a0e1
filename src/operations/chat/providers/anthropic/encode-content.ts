import type { ContentPart, FilePart, ImagePart, Message } from '../../core/ir.ts'
import { parseToolArguments, safeToolCallId } from '../../core/tool-calls.ts'
import { refuseField } from '../../../../providers/refuse-field.ts'

export type AnthropicBlock = Record<string, unknown>
export interface AnthropicMessage {
  role: 'user' | 'assistant'
  content: AnthropicBlock[]
}

function encodeImage(part: ImagePart): AnthropicBlock {
  const source =
    part.data !== undefined
      ? { type: 'base64', media_type: part.mediaType ?? 'image/png', data: part.data }
      : { type: 'url', url: part.url ?? '' }
  return { type: 'image', source }
}

/** A `document` block: PDFs inline or by URL, plain text inline; Anthropic reads no other document type. */
function encodeDocument(part: FilePart): AnthropicBlock {
  const title = part.filename ? { title: part.filename } : {}
  if (part.mediaType === 'application/pdf') {
    return {
      type: 'document',
      source:
        part.data !== undefined ? { type: 'base64', media_type: 'application/pdf', data: part.data } : { type: 'url', url: part.url ?? '' },
      ...title,
    }
  }
  if (part.mediaType === 'text/plain' && part.data !== undefined) {
    return {
      type: 'document',
      source: { type: 'text', media_type: 'text/plain', data: Buffer.from(part.data, 'base64').toString('utf8') },
      ...title,
    }
  }
  throw refuseField('messages (file)', 'anthropic', `reads documents only as PDF or plain text, not '${part.mediaType}'`)
}

const encodeMedia = (part: ImagePart | FilePart): AnthropicBlock => (part.type === 'image' ? encodeImage(part) : encodeDocument(part))

/** One IR part as a block; undefined for what Anthropic would reject (empty text, unsigned thinking from other vendors). */
function encodePart(part: ContentPart): AnthropicBlock | undefined {
  switch (part.type) {
    case 'text':
      return part.text ? { type: 'text', text: part.text } : undefined
    case 'image':
      return encodeImage(part)
    case 'file':
      return encodeDocument(part)
    case 'audio':
      throw refuseField('messages (audio)', 'anthropic', 'takes no audio input')
    case 'tool-call':
      return { type: 'tool_use', id: safeToolCallId(part.id), name: part.name, input: parseToolArguments(part.arguments) }
    case 'tool-result': {
      const content = part.media?.length
        ? [...(part.content ? [{ type: 'text', text: part.content }] : []), ...part.media.map(encodeMedia)]
        : part.content
      const block: AnthropicBlock = { type: 'tool_result', tool_use_id: safeToolCallId(part.toolCallId), content }
      if (part.isError) block.is_error = true
      return block
    }
    case 'reasoning':
      if (part.redacted) return { type: 'redacted_thinking', data: part.redacted }
      // A thinking block is only accepted back with Anthropic's own signature.
      return part.signature ? { type: 'thinking', thinking: part.text, signature: part.signature } : undefined
  }
}

/**
 * IR messages → Messages API turns. System messages found among the turns join the top-level system prompt;
 * tool results travel in a user turn; consecutive turns of one role are merged into one (tool results first,
 * as Anthropic requires), and turns left empty are dropped.
 */
export function encodeAnthropicMessages(messages: Message[], system: string[]): AnthropicMessage[] {
  const turns: AnthropicMessage[] = []
  for (const message of messages) {
    if (message.role === 'system') {
      for (const part of message.content) if (part.type === 'text' && part.text) system.push(part.text)
      continue
    }
    const role = message.role === 'assistant' ? 'assistant' : 'user'
    const blocks = message.content.map(encodePart).filter((block) => block !== undefined)
    if (blocks.length === 0) continue
    const previous = turns.at(-1)
    if (previous?.role === role) {
      previous.content.push(...blocks)
      previous.content.sort((a, b) => Number(b.type === 'tool_result') - Number(a.type === 'tool_result'))
    } else turns.push({ role, content: blocks })
  }
  return turns
}
