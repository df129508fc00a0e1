import { invalidRequest } from '../../../../core/errors.ts'
import type { ContentPart, FilePart, ImagePart, Message } from '../../core/ir.ts'
import { type Json, optionalString, requireArray, requireObject, requireString } from '../../../../protocols/shared/validate.ts'
import { flattenName } from './decode-tools.ts'
import { openReasoning } from './reasoning-envelope.ts'
import { statelessError } from './stateless.ts'

const roles = ['user', 'assistant', 'system', 'developer']

/** Items that only record what a hosted tool did on OpenAI's side; no upstream here needs them replayed. */
const skippedItems = new Set(['web_search_call'])

function decodeImage(part: Json, field: string): ContentPart {
  const url = optionalString(part.image_url, `${field}.image_url`)
  if (url === undefined) {
    if (part.file_id != null)
      throw statelessError(
        `'${field}.file_id' refers to an uploaded file, which this gateway cannot read; send the image as 'image_url' (a URL or a data: URL).`,
        `${field}.file_id`,
      )
    throw invalidRequest(`Missing required parameter: '${field}.image_url'.`, `${field}.image_url`)
  }
  const inline = /^data:([^;,]+);base64,(.*)$/s.exec(url)
  return inline ? { type: 'image', mediaType: inline[1], data: inline[2] } : { type: 'image', url }
}

/** `input_file`: inline `file_data` (a data: URL or bare base64) or a `file_url`; an uploaded `file_id` needs stored state. */
function decodeFile(part: Json, field: string): ContentPart {
  if (part.file_id != null)
    throw statelessError(
      `'${field}.file_id' refers to an uploaded file, which this gateway cannot read; send the file as 'file_data' or 'file_url'.`,
      `${field}.file_id`,
    )
  const filename = optionalString(part.filename, `${field}.filename`)
  const url = optionalString(part.file_url, `${field}.file_url`)
  if (url !== undefined) return { type: 'file', mediaType: 'application/pdf', url, ...(filename && { filename }) }
  const data = requireString(part.file_data, `${field}.file_data`)
  const inline = /^data:([^;,]+);base64,(.*)$/s.exec(data)
  return { type: 'file', mediaType: inline?.[1] ?? 'application/pdf', data: inline ? inline[2]! : data, ...(filename && { filename }) }
}

/** Message content: a string or parts; text of every kind is text, images are images, files are files. */
function decodeContent(value: unknown, field: string): ContentPart[] {
  if (typeof value === 'string') return value === '' ? [] : [{ type: 'text', text: value }]
  const parts: ContentPart[] = []
  for (const [index, item] of requireArray(value, field).entries()) {
    const partField = `${field}[${index}]`
    const part = requireObject(item, partField)
    const type = requireString(part.type, `${partField}.type`)
    if (type === 'input_text' || type === 'output_text' || type === 'text')
      parts.push({ type: 'text', text: requireString(part.text, `${partField}.text`) })
    else if (type === 'refusal') parts.push({ type: 'text', text: requireString(part.refusal, `${partField}.refusal`) })
    else if (type === 'input_image') parts.push(decodeImage(part, partField))
    else if (type === 'input_file') parts.push(decodeFile(part, partField))
    else
      throw invalidRequest(
        `Invalid value for '${partField}.type': '${type}' content is not supported; use input_text, input_image or input_file.`,
        `${partField}.type`,
      )
  }
  return parts
}

/** A tool's output: a string, or input_text/input_image/input_file parts (the Codex CLI sends images from its view_image tool). */
function decodeOutput(value: unknown, field: string): { content: string; media?: (ImagePart | FilePart)[] } {
  if (typeof value === 'string') return { content: value }
  const parts = decodeContent(value, field)
  let content = ''
  for (const part of parts) if (part.type === 'text') content += part.text
  const media = parts.filter((part) => part.type === 'image' || part.type === 'file')
  return media.length ? { content, media } : { content }
}

/** Reasoning replayed by the client: its readable text, plus the upstream signature if it went out in our envelope. */
function decodeReasoning(item: Json, field: string): ContentPart | undefined {
  const texts = (list: unknown, listField: string) =>
    list == null
      ? []
      : requireArray(list, listField).map((entry, index) =>
          requireString(requireObject(entry, `${listField}[${index}]`).text, `${listField}[${index}].text`),
        )
  const content = texts(item.content, `${field}.content`)
  const summary = texts(item.summary, `${field}.summary`)
  const text = content.length ? content.join('') : summary.join('\n\n')
  const seal = openReasoning(item.encrypted_content)
  if (!text && !seal) return undefined
  return {
    type: 'reasoning',
    text,
    ...(seal?.signature && { signature: seal.signature }),
    ...(seal?.redacted && { redacted: seal.redacted }),
  }
}

/**
 * `input` → the IR conversation. Consecutive assistant-side items (reasoning, assistant messages, function calls)
 * become one assistant message and consecutive function outputs one tool message, the turn shapes every upstream
 * expects. System and developer messages join `system`, each text part one entry, in order.
 */
export function decodeInput(value: unknown): { system: string[]; messages: Message[] } {
  if (typeof value === 'string') return { system: [], messages: [{ role: 'user', content: [{ type: 'text', text: value }] }] }
  const list = requireArray(value, 'input')
  const system: string[] = []
  const messages: Message[] = []
  const callNames = new Map<string, string>()
  const append = (role: 'assistant' | 'tool' | 'user', parts: ContentPart[]) => {
    const last = messages.at(-1)
    if (last?.role === role && role !== 'user') last.content.push(...parts)
    else messages.push({ role, content: parts })
  }
  for (const [index, entry] of list.entries()) {
    const field = `input[${index}]`
    const item = requireObject(entry, field)
    const type = item.type === undefined && item.role !== undefined ? 'message' : requireString(item.type, `${field}.type`)
    if (type === 'message') {
      const role = requireString(item.role, `${field}.role`)
      if (!roles.includes(role))
        throw invalidRequest(`Invalid value for '${field}.role': '${role}' is not one of ${roles.join(', ')}.`, `${field}.role`)
      const content = decodeContent(item.content, `${field}.content`)
      if (role === 'system' || role === 'developer') {
        for (const part of content) if (part.type === 'text') system.push(part.text)
      } else append(role as 'user' | 'assistant', content)
    } else if (type === 'function_call') {
      const id = requireString(item.call_id, `${field}.call_id`)
      const name = requireString(item.name, `${field}.name`)
      const namespace = optionalString(item.namespace, `${field}.namespace`)
      const flat = namespace ? flattenName(namespace, name) : name
      callNames.set(id, flat)
      append('assistant', [{ type: 'tool-call', id, name: flat, arguments: optionalString(item.arguments, `${field}.arguments`) ?? '{}' }])
    } else if (type === 'function_call_output') {
      const id = requireString(item.call_id, `${field}.call_id`)
      const output = decodeOutput(item.output, `${field}.output`)
      append('tool', [{ type: 'tool-result', toolCallId: id, name: callNames.get(id), ...output }])
    } else if (type === 'reasoning') {
      const reasoning = decodeReasoning(item, field)
      if (reasoning) append('assistant', [reasoning])
    } else if (type === 'item_reference') {
      throw statelessError(`'${field}' is an item_reference, which needs stored items; send the item itself instead.`, `${field}.id`)
    } else if (!skippedItems.has(type)) {
      throw invalidRequest(
        `Invalid value for '${field}.type': '${type}' items are not supported; use message, function_call, function_call_output or reasoning.`,
        `${field}.type`,
      )
    }
  }
  if (messages.length === 0)
    throw invalidRequest("Invalid value for 'input': it must contain at least one user, assistant or tool item.", 'input')
  return { system, messages }
}
