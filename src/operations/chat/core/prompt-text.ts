import type { ChatRequest } from './ir.ts'

/** The prompt as plain text, for estimating its tokens. */
export function promptText(request: ChatRequest): string {
  let text = request.system.join('\n')
  for (const message of request.messages) {
    for (const part of message.content) {
      if (part.type === 'text' || part.type === 'reasoning') text += `\n${part.text}`
      else if (part.type === 'tool-call') text += `\n${part.name} ${part.arguments}`
      else if (part.type === 'tool-result') text += `\n${part.content}`
    }
  }
  for (const tool of request.tools ?? []) text += `\n${tool.name} ${tool.description ?? ''} ${JSON.stringify(tool.parameters)}`
  return text
}
