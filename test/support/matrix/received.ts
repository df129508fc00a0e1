import type { Dialect } from './faults.ts'

/**
 * What an upstream received, read from its own wire format into one shape the matrix can compare: the system
 * prompt, the turns (tool results count as a user turn, as two of the three protocols send them) and the tools.
 * Written here from the vendors' formats, independently of the gateway's codecs, so a codec bug cannot hide.
 */
export interface Transcript {
  system: string
  turns: Turn[]
  tools: { name: string; parameters: unknown }[]
}

export interface Turn {
  role: 'user' | 'assistant'
  text: string
  calls: { id?: string; name: string; args: unknown }[]
  results: { id?: string; name?: string; content: string }[]
}

const turn = (role: Turn['role'], text = ''): Turn => ({ role, text, calls: [], results: [] })

function textOf(content: any): string {
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return ''
  return content.map((part: any) => (part.type === undefined || part.type === 'text' ? (part.text ?? '') : '')).join('')
}

function readOpenAi(body: any): Transcript {
  const turns: Turn[] = []
  const system: string[] = []
  for (const message of body.messages) {
    if (message.role === 'system' || message.role === 'developer') system.push(textOf(message.content))
    else if (message.role === 'tool') {
      const result = { id: message.tool_call_id, content: textOf(message.content) }
      const last = turns.at(-1)
      if (last?.role === 'user' && last.results.length) last.results.push(result)
      else turns.push({ ...turn('user'), results: [result] })
    } else {
      const entry = turn(message.role, textOf(message.content))
      for (const call of message.tool_calls ?? [])
        entry.calls.push({ id: call.id, name: call.function.name, args: JSON.parse(call.function.arguments) })
      turns.push(entry)
    }
  }
  const tools = (body.tools ?? []).map((tool: any) => ({ name: tool.function.name, parameters: tool.function.parameters }))
  return { system: system.join('\n'), turns, tools }
}

function readAnthropic(body: any): Transcript {
  const turns = body.messages.map((message: any): Turn => {
    const entry = turn(message.role, textOf(message.content))
    for (const block of Array.isArray(message.content) ? message.content : []) {
      if (block.type === 'tool_use') entry.calls.push({ id: block.id, name: block.name, args: block.input })
      if (block.type === 'tool_result') entry.results.push({ id: block.tool_use_id, content: textOf(block.content) })
    }
    return entry
  })
  const tools = (body.tools ?? []).map((tool: any) => ({ name: tool.name, parameters: tool.input_schema }))
  return { system: textOf(body.system), turns, tools }
}

function readGemini(body: any): Transcript {
  const turns = body.contents.map((content: any): Turn => {
    const entry = turn(content.role === 'model' ? 'assistant' : 'user')
    for (const part of content.parts) {
      if (typeof part.text === 'string' && !part.thought) entry.text += part.text
      if (part.functionCall) entry.calls.push({ id: part.functionCall.id, name: part.functionCall.name, args: part.functionCall.args })
      if (part.functionResponse) {
        const { id, name, response } = part.functionResponse
        entry.results.push({ id, name, content: typeof response?.output === 'string' ? response.output : JSON.stringify(response) })
      }
    }
    return entry
  })
  const tools = (body.tools ?? []).flatMap((tool: any) =>
    (tool.functionDeclarations ?? []).map((declaration: any) => ({
      name: declaration.name,
      parameters: declaration.parametersJsonSchema ?? declaration.parameters,
    })),
  )
  const system = (body.systemInstruction?.parts ?? []).map((part: any) => part.text ?? '').join('\n')
  return { system, turns, tools }
}

export function readTranscript(dialect: Dialect, body: unknown): Transcript {
  if (dialect === 'openai') return readOpenAi(body)
  if (dialect === 'anthropic') return readAnthropic(body)
  return readGemini(body)
}
