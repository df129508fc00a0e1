import type { ContentPart, FilePart, ImagePart } from '../../core/ir.ts'
import { parseToolArguments } from '../../core/tool-calls.ts'

/**
 * Gemini `Part`s ↔ IR content parts, for both directions of the wire: the gemini provider (requests out, answers
 * in) and the gemini client protocol (requests in, answers out) speak the same parts, so they share this codec.
 *
 * Thought signatures: Gemini puts `thoughtSignature` on the part that *follows* the model's thinking (the first
 * answer part or a functionCall), not on the thought itself. The IR keeps a signature on the reasoning part that
 * precedes that part (an empty reasoning part when no thought text was returned), so every other protocol can carry
 * it; encoding puts it back on the part that follows, which restores the original placement.
 */
export interface GeminiPart {
  text?: string
  thought?: boolean
  thoughtSignature?: string
  inlineData?: { mimeType?: string; data?: string }
  fileData?: { mimeType?: string; fileUri?: string }
  functionCall?: { id?: string; name?: string; args?: Record<string, unknown> }
  functionResponse?: { id?: string; name?: string; response?: Record<string, unknown>; parts?: GeminiMediaPart[] }
}

/** A multimodal function response's own parts: media only (its text is in `response`). */
export interface GeminiMediaPart {
  inlineData?: { mimeType?: string; data?: string }
  fileData?: { mimeType?: string; fileUri?: string }
}

/** How Gemini's optional call ids become the ids the IR requires. */
export interface CallIds {
  forCall(call: { id?: string; name: string }): string
  forResult(result: { id?: string; name: string }): string
}

/** Gemini parts → IR parts. Parts the IR cannot carry (executableCode, …) are left out. */
export function decodeGeminiParts(parts: GeminiPart[], ids: CallIds): ContentPart[] {
  const content: ContentPart[] = []
  for (const part of parts) {
    if (part.thought) {
      content.push({ type: 'reasoning', text: part.text ?? '', ...(part.thoughtSignature && { signature: part.thoughtSignature }) })
      continue
    }
    if (part.thoughtSignature) attachSignature(content, part.thoughtSignature)
    if (part.functionCall) {
      const name = part.functionCall.name ?? ''
      content.push({
        type: 'tool-call',
        id: ids.forCall({ id: part.functionCall.id, name }),
        name,
        arguments: JSON.stringify(part.functionCall.args ?? {}),
      })
    } else if (part.functionResponse) {
      const name = part.functionResponse.name ?? ''
      const media = decodeResponseMedia(part.functionResponse.parts)
      content.push({
        type: 'tool-result',
        toolCallId: ids.forResult({ id: part.functionResponse.id, name }),
        name,
        ...decodeResponse(part.functionResponse.response),
        ...(media.length && { media }),
      })
    } else if (part.inlineData) {
      content.push(decodeMedia(part.inlineData.mimeType, { data: part.inlineData.data ?? '' }))
    } else if (part.fileData?.fileUri) {
      content.push(decodeMedia(part.fileData.mimeType, { url: part.fileData.fileUri }))
    } else if (typeof part.text === 'string' && part.text !== '') {
      content.push({ type: 'text', text: part.text })
    }
  }
  return content
}

/**
 * Gemini carries every medium in the same two fields; the IR tells them apart by media type, because the other
 * vendors do (an OpenAI upstream takes a PDF only as a `file` part, audio only as `input_audio`). No media type on
 * a file URI is taken for an image, the common case.
 */
function decodeMedia(mimeType: string | undefined, source: { data?: string; url?: string }): ContentPart {
  if (!mimeType || mimeType.startsWith('image/')) return { type: 'image', ...(mimeType && { mediaType: mimeType }), ...source }
  if (mimeType.startsWith('audio/') && source.data !== undefined) return { type: 'audio', mediaType: mimeType, data: source.data }
  return { type: 'file', mediaType: mimeType, ...source }
}

/**
 * A function response's media (Gemini's multimodal function responses) → the tool result's media. The IR's tool
 * results carry images and files; audio goes as a file of its media type.
 */
function decodeResponseMedia(parts: GeminiMediaPart[] | undefined): (ImagePart | FilePart)[] {
  const media: (ImagePart | FilePart)[] = []
  for (const part of parts ?? []) {
    const decoded = part.inlineData
      ? decodeMedia(part.inlineData.mimeType, { data: part.inlineData.data ?? '' })
      : part.fileData?.fileUri
        ? decodeMedia(part.fileData.mimeType, { url: part.fileData.fileUri })
        : undefined
    if (decoded?.type === 'image' || decoded?.type === 'file') media.push(decoded)
    else if (decoded?.type === 'audio') media.push({ type: 'file', mediaType: decoded.mediaType, data: decoded.data })
  }
  return media
}

/** A signature belongs to the reasoning just before; when the model showed no thoughts, an empty one holds it. */
function attachSignature(content: ContentPart[], signature: string): void {
  const last = content.at(-1)
  if (last?.type === 'reasoning' && !last.signature) last.signature = signature
  else content.push({ type: 'reasoning', text: '', signature })
}

/** `{output: "…"}` (the documented convention) becomes its plain text; `{error: …}` marks a failed call. */
function decodeResponse(response: Record<string, unknown> | undefined): { content: string; isError?: boolean } {
  const keys = Object.keys(response ?? {})
  const only = keys.length === 1 ? response![keys[0]!] : undefined
  if (keys[0] === 'output' && typeof only === 'string') return { content: only }
  if (keys[0] === 'error' && only !== undefined) return { content: typeof only === 'string' ? only : JSON.stringify(only), isError: true }
  return { content: JSON.stringify(response ?? {}) }
}

/** The inverse of decodeResponse: a JSON object travels as is, anything else is wrapped as `{output}`/`{error}`. */
function encodeFunctionResponse(content: string, isError?: boolean): Record<string, unknown> {
  if (!isError) {
    try {
      const parsed = JSON.parse(content) as unknown
      if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Record<string, unknown>
    } catch {}
  }
  return isError ? { error: content } : { output: content }
}

function encodeMedia(part: ImagePart | FilePart): GeminiPart {
  return part.data !== undefined
    ? { inlineData: { mimeType: part.mediaType ?? 'image/png', data: part.data } }
    : { fileData: { fileUri: part.url ?? '', ...(part.mediaType && { mimeType: part.mediaType }) } }
}

export interface EncodeOptions {
  /** Send call ids (answers to a Gemini client, which echoes them back); the Gemini API itself pairs by order. */
  withIds?: boolean
  /** The name of the call a result answers, when the result itself does not say (OpenAI tool messages). */
  nameOf?: (toolCallId: string) => string | undefined
}

/** IR parts → Gemini parts, putting each reasoning signature on the part that follows it. */
export function encodeGeminiParts(content: ContentPart[], options: EncodeOptions = {}): GeminiPart[] {
  const parts: GeminiPart[] = []
  let pending: string | undefined
  const push = (part: GeminiPart) => {
    if (pending) part.thoughtSignature = pending
    pending = undefined
    parts.push(part)
  }
  for (const part of content) {
    switch (part.type) {
      case 'reasoning':
        if (part.redacted !== undefined && !part.text) break
        if (pending) push({ text: '' })
        if (part.text) parts.push({ text: part.text, thought: true })
        pending = part.signature
        break
      case 'text':
        push({ text: part.text })
        break
      case 'image':
      case 'file':
        push(encodeMedia(part))
        break
      case 'audio':
        push({ inlineData: { mimeType: part.mediaType, data: part.data } })
        break
      case 'tool-call':
        push({ functionCall: { ...(options.withIds && { id: part.id }), name: part.name, args: parseToolArguments(part.arguments) } })
        break
      case 'tool-result':
        push({
          functionResponse: {
            ...(options.withIds && { id: part.toolCallId }),
            name: part.name ?? options.nameOf?.(part.toolCallId) ?? part.toolCallId,
            response: encodeFunctionResponse(part.content, part.isError),
          },
        })
        // What a tool returned beside its text (a screenshot) follows its response in the same turn.
        for (const media of part.media ?? []) parts.push(encodeMedia(media))
        break
    }
  }
  if (pending) push({ text: '' })
  return parts
}
