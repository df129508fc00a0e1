import type { ChatRequest, Message, ToolDefinition } from '../../core/ir.ts'

/** Words that ask for a tool without naming one: "use …", "call …", "… the tool". */
const askingWords = /\b(?:use|call|tools?)\b/i

/**
 * What the user said in a message: its text, without the `<system-reminder>` blocks Claude Code slips into user
 * turns (they are the CLI talking, not the user, and they mention tools all the time).
 */
export function userWords(message: Message | undefined): string {
  if (!message) return ''
  let text = ''
  for (const part of message.content) if (part.type === 'text') text += `${part.text}\n`
  return text.replace(/<system-reminder>[\s\S]*?<\/system-reminder>/g, ' ').trim()
}

function mentions(text: string, name: string): boolean {
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
  return new RegExp(`(?<![A-Za-z0-9_])${escaped}(?![A-Za-z0-9_])`, 'i').test(text)
}

/**
 * The tool the mock calls, if any. Like a polite model, it calls one only when asked: tool_choice `required` or a
 * named tool, or a last user message that names an offered tool or says "use", "call" or "tool". A tool named in the
 * message wins over the first one offered. It never calls a tool in answer to a tool result (a client running the
 * tool would loop), nor with tool_choice `none`.
 */
export function pickTool(request: ChatRequest): ToolDefinition | undefined {
  const tools = request.tools ?? []
  const choice = request.toolChoice
  const last = request.messages.at(-1)
  if (!tools.length || choice?.type === 'none') return undefined
  if (!last || last.content.some((part) => part.type === 'tool-result')) return undefined
  if (choice?.type === 'tool') return tools.find((tool) => tool.name === choice.name)
  const words = last.role === 'user' ? userWords(last) : ''
  const named = tools.find((tool) => mentions(words, tool.name))
  if (named) return named
  if (choice?.type === 'required' || askingWords.test(words)) return tools[0]
  return undefined
}
