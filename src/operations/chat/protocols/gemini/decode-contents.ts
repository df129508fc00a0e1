import { invalidRequest } from '../../../../core/errors.ts'
import type { ContentPart, Message } from '../../core/ir.ts'
import { decodeGeminiParts, type GeminiMediaPart, type GeminiPart } from '../../wire/gemini/parts.ts'
import { optionalBoolean, optionalString, requireArray, requireObject, requireString } from '../../../../protocols/shared/validate.ts'
import { createConversationCallIds } from './call-ids.ts'
import { readField } from '../../../../protocols/gemini/read-field.ts'

const dataFields = ['text', 'inlineData', 'fileData', 'functionCall', 'functionResponse', 'executableCode', 'codeExecutionResult']

/** Check one part's fields (a 400 naming the field), then hand back the camelCase part the shared codec reads. */
function validatePart(value: unknown, field: string): GeminiPart {
  const part = requireObject(value, field)
  const text = optionalString(readField(part, 'text'), `${field}.text`)
  const decoded: GeminiPart = {}
  if (text !== undefined) decoded.text = text
  if (optionalBoolean(readField(part, 'thought'), `${field}.thought`)) decoded.thought = true
  const signature = optionalString(readField(part, 'thoughtSignature'), `${field}.thoughtSignature`)
  if (signature) decoded.thoughtSignature = signature
  const inline = readField(part, 'inlineData')
  if (inline !== undefined) {
    const data = requireObject(inline, `${field}.inlineData`)
    decoded.inlineData = {
      mimeType: requireString(readField(data, 'mimeType'), `${field}.inlineData.mimeType`),
      data: requireString(data.data, `${field}.inlineData.data`),
    }
  }
  const file = readField(part, 'fileData')
  if (file !== undefined) {
    const data = requireObject(file, `${field}.fileData`)
    decoded.fileData = {
      fileUri: requireString(readField(data, 'fileUri'), `${field}.fileData.fileUri`),
      mimeType: optionalString(readField(data, 'mimeType'), `${field}.fileData.mimeType`),
    }
  }
  const call = readField(part, 'functionCall')
  if (call !== undefined) {
    const data = requireObject(call, `${field}.functionCall`)
    const args = data.args === undefined || data.args === null ? {} : data.args
    decoded.functionCall = {
      id: optionalString(data.id, `${field}.functionCall.id`),
      name: requireString(data.name, `${field}.functionCall.name`),
      args: requireObject(args, `${field}.functionCall.args`),
    }
  }
  const response = readField(part, 'functionResponse')
  if (response !== undefined) {
    const data = requireObject(response, `${field}.functionResponse`)
    decoded.functionResponse = {
      id: optionalString(data.id, `${field}.functionResponse.id`),
      name: requireString(data.name, `${field}.functionResponse.name`),
      response: requireObject(data.response ?? {}, `${field}.functionResponse.response`),
    }
    const media = readField(data, 'parts')
    if (media !== undefined && media !== null) decoded.functionResponse.parts = validateMediaParts(media, `${field}.functionResponse.parts`)
  }
  if (!dataFields.some((name) => readField(part, name) !== undefined) && !signature) {
    throw invalidRequest(
      `Invalid value for '${field}': a part must hold one of text, inlineData, fileData, functionCall or functionResponse.`,
      field,
    )
  }
  return decoded
}

/** A multimodal function response's parts: each holds inlineData or fileData (a 400 naming the field otherwise). */
function validateMediaParts(value: unknown, field: string): GeminiMediaPart[] {
  return requireArray(value, field).map((item, index) => {
    const at = `${field}[${index}]`
    const part = requireObject(item, at)
    const inline = readField(part, 'inlineData')
    const file = readField(part, 'fileData')
    if (inline !== undefined) {
      const data = requireObject(inline, `${at}.inlineData`)
      return {
        inlineData: {
          mimeType: requireString(readField(data, 'mimeType'), `${at}.inlineData.mimeType`),
          data: requireString(data.data, `${at}.inlineData.data`),
        },
      }
    }
    if (file !== undefined) {
      const data = requireObject(file, `${at}.fileData`)
      return {
        fileData: {
          fileUri: requireString(readField(data, 'fileUri'), `${at}.fileData.fileUri`),
          mimeType: optionalString(readField(data, 'mimeType'), `${at}.fileData.mimeType`),
        },
      }
    }
    throw invalidRequest(`Invalid value for '${at}': a function response part must hold inlineData or fileData.`, at)
  })
}

function validateParts(value: unknown, field: string): GeminiPart[] {
  return requireArray(value ?? [], field).map((part, index) => validatePart(part, `${field}[${index}]`))
}

/** `contents` → IR messages. A user turn's function responses become one `tool` message ahead of its other parts. */
export function decodeContents(value: unknown): Message[] {
  if (value === undefined) throw invalidRequest("Missing required parameter: 'contents'.", 'contents')
  const list = requireArray(value, 'contents')
  if (list.length === 0) throw invalidRequest("Invalid value for 'contents': it must contain at least one content.", 'contents')
  const ids = createConversationCallIds()
  const messages: Message[] = []
  for (const [index, item] of list.entries()) {
    const field = `contents[${index}]`
    const content = requireObject(item, field)
    const role = optionalString(content.role, `${field}.role`) ?? 'user'
    if (role !== 'user' && role !== 'model' && role !== 'function') {
      throw invalidRequest(`Invalid value for '${field}.role': '${role}' is not one of user, model.`, `${field}.role`)
    }
    const parts = decodeGeminiParts(validateParts(content.parts, `${field}.parts`), ids)
    if (role === 'model') {
      messages.push({ role: 'assistant', content: parts.filter((part) => part.type !== 'tool-result') })
      continue
    }
    const results = parts.filter((part) => part.type === 'tool-result')
    const rest = parts.filter((part): part is ContentPart => part.type !== 'tool-result' && part.type !== 'tool-call')
    if (results.length) messages.push({ role: 'tool', content: results })
    if (rest.length || !results.length) messages.push({ role: 'user', content: rest })
  }
  return messages
}

/** `systemInstruction`: a Content (role ignored; one IR instruction per text part) or, as some clients send it, a string. */
export function decodeSystemInstruction(value: unknown): string[] {
  if (value === undefined || value === null) return []
  if (typeof value === 'string') return value ? [value] : []
  const content = requireObject(value, 'systemInstruction')
  return validateParts(content.parts, 'systemInstruction.parts').flatMap((part) => (part.text ? [part.text] : []))
}
