import { invalidRequest } from '../../../../core/errors.ts'
import type { ContentPart, FilePart, ImagePart, Message } from '../../core/ir.ts'
import {
  readMessages,
  type Json,
  optionalBoolean,
  optionalString,
  requireArray,
  requireObject,
  requireString,
} from '../../../../protocols/shared/validate.ts'

/** `user` and `assistant` are the protocol's roles; `system` turns are what Claude Code sends mid-conversation. */
const roles = ['user', 'assistant', 'system']

function decodeImage(block: Json, field: string): ImagePart {
  const source = requireObject(block.source, `${field}.source`)
  const type = requireString(source.type, `${field}.source.type`)
  if (type === 'base64')
    return {
      type: 'image',
      mediaType: optionalString(source.media_type, `${field}.source.media_type`),
      data: requireString(source.data, `${field}.source.data`),
    }
  if (type === 'url') return { type: 'image', url: requireString(source.url, `${field}.source.url`) }
  throw invalidRequest(`Invalid value for '${field}.source.type': '${type}' is not supported; use base64 or url.`, `${field}.source.type`)
}

/** A `document` block: a PDF (base64 or URL) is a file part; a plain-text document is its text. */
function decodeDocument(block: Json, field: string): FilePart | ContentPart {
  const source = requireObject(block.source, `${field}.source`)
  const type = requireString(source.type, `${field}.source.type`)
  const mediaType = optionalString(source.media_type, `${field}.source.media_type`) ?? 'application/pdf'
  const title = optionalString(block.title, `${field}.title`)
  if (type === 'base64')
    return { type: 'file', mediaType, data: requireString(source.data, `${field}.source.data`), ...(title && { filename: title }) }
  if (type === 'url')
    return { type: 'file', mediaType, url: requireString(source.url, `${field}.source.url`), ...(title && { filename: title }) }
  if (type === 'text') return { type: 'text', text: requireString(source.data, `${field}.source.data`) }
  throw invalidRequest(
    `Invalid value for '${field}.source.type': '${type}' is not supported; use base64, url or text.`,
    `${field}.source.type`,
  )
}

/** A tool result's content: a string, or text, image and document blocks (the images travel as the result's media). */
function decodeToolResultContent(value: unknown, field: string): { content: string; media?: (ImagePart | FilePart)[] } {
  if (value === undefined || value === null) return { content: '' }
  if (typeof value === 'string') return { content: value }
  let content = ''
  const media: (ImagePart | FilePart)[] = []
  for (const [index, item] of requireArray(value, field).entries()) {
    const block = requireObject(item, `${field}[${index}]`)
    if (block.type === 'text') content += requireString(block.text, `${field}[${index}].text`)
    else if (block.type === 'image') media.push(decodeImage(block, `${field}[${index}]`))
    else if (block.type === 'document') {
      const part = decodeDocument(block, `${field}[${index}]`)
      if (part.type === 'file') media.push(part)
      else if (part.type === 'text') content += part.text
    } else
      throw invalidRequest(
        `Invalid value for '${field}[${index}].type': a tool result holds text, image or document blocks.`,
        `${field}[${index}].type`,
      )
  }
  return media.length ? { content, media } : { content }
}

/** One content block → an IR part; server-side blocks (web search results…) have no IR form and are skipped. */
function decodeBlock(item: unknown, field: string, toolNames: Map<string, string>): ContentPart | undefined {
  const block = requireObject(item, field)
  const type = requireString(block.type, `${field}.type`)
  switch (type) {
    case 'text':
      return { type: 'text', text: requireString(block.text, `${field}.text`) }
    case 'image':
      return decodeImage(block, field)
    case 'document':
      return decodeDocument(block, field)
    case 'tool_use': {
      const id = requireString(block.id, `${field}.id`)
      const name = requireString(block.name, `${field}.name`)
      toolNames.set(id, name)
      const input = block.input === undefined ? {} : requireObject(block.input, `${field}.input`)
      return { type: 'tool-call', id, name, arguments: JSON.stringify(input) }
    }
    case 'tool_result': {
      const toolCallId = requireString(block.tool_use_id, `${field}.tool_use_id`)
      const result = decodeToolResultContent(block.content, `${field}.content`)
      const isError = optionalBoolean(block.is_error, `${field}.is_error`)
      return { type: 'tool-result', toolCallId, name: toolNames.get(toolCallId), ...result, ...(isError && { isError }) }
    }
    case 'thinking':
      return {
        type: 'reasoning',
        text: requireString(block.thinking, `${field}.thinking`),
        signature: optionalString(block.signature, `${field}.signature`),
      }
    case 'redacted_thinking':
      return { type: 'reasoning', text: '', redacted: requireString(block.data, `${field}.data`) }
    default:
      return undefined
  }
}

function decodeContent(value: unknown, field: string, toolNames: Map<string, string>): ContentPart[] {
  if (typeof value === 'string') return value === '' ? [] : [{ type: 'text', text: value }]
  if (!Array.isArray(value)) throw invalidRequest(`Invalid type for '${field}': expected a string or an array of content blocks.`, field)
  return value.map((item, index) => decodeBlock(item, `${field}[${index}]`, toolNames)).filter((part) => part !== undefined)
}

/**
 * Messages → IR. Tool results ride in user turns in Anthropic's protocol; in the IR they are `tool` messages
 * (as the OpenAI decoder makes them), so a user turn is split into runs of tool results and of other parts.
 */
export function decodeMessages(value: unknown): { system: string[]; messages: Message[] } {
  const system: string[] = []
  const messages: Message[] = []
  const toolNames = new Map<string, string>()
  const list = readMessages(value, roles, 'user, assistant')
  for (let index = 0; index < list.length; index++) {
    const message = list[index]!
    const role = message.role
    const field = `messages[${index}]`
    if (message.content === undefined) throw invalidRequest(`Missing required parameter: '${field}.content'.`, `${field}.content`)
    const parts = decodeContent(message.content, `${field}.content`, toolNames)
    if (role === 'system') {
      system.push(parts.map((part) => (part.type === 'text' ? part.text : '')).join(''))
      continue
    }
    if (role === 'assistant') {
      messages.push({ role: 'assistant', content: parts })
      continue
    }
    if (parts.length === 0) messages.push({ role: 'user', content: [] })
    const turnStart = messages.length
    for (const part of parts) {
      const runRole = part.type === 'tool-result' ? 'tool' : 'user'
      const previous = messages.length > turnStart ? messages.at(-1) : undefined
      if (previous?.role === runRole) previous.content.push(part)
      else messages.push({ role: runRole, content: [part] })
    }
  }
  return { system, messages }
}
