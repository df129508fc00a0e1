import type { ContentPart } from '../../core/ir.ts'

/**
 * JSON mode toward Anthropic, emulated: the request forces this one tool, whose input is the JSON object the client
 * asked for; the decoders give its input back as the answer's text and the stop reason as an ordinary end. The name
 * is the gateway's own, so no client tool is mistaken for it (a request with tools is refused JSON mode instead).
 */
export const jsonAnswerTool = {
  name: 'tollgate_json_answer',
  description: 'Give your whole answer as one JSON object, as the instructions ask.',
  input_schema: { type: 'object', additionalProperties: true },
}

export function isJsonAnswer(name: string | undefined): boolean {
  return name === jsonAnswerTool.name
}

/** The answer's parts with the JSON answer call turned back into text; `unwrapped` says whether there was one. */
export function unwrapJsonAnswer(content: ContentPart[]): { content: ContentPart[]; unwrapped: boolean } {
  let unwrapped = false
  const parts = content.map((part): ContentPart => {
    if (part.type !== 'tool-call' || !isJsonAnswer(part.name)) return part
    unwrapped = true
    return { type: 'text', text: part.arguments }
  })
  return { content: parts, unwrapped }
}
