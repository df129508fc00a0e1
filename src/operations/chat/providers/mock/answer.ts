import type { ChatRequest, ContentPart, FinishReason, Usage } from '../../core/ir.ts'
import { pickTool, userWords } from './pick-tool.ts'

/** What the mock will say, decided up front so that the JSON and the streamed answer are the same. */
export interface MockAnswer {
  reasoning?: string
  /** The answer text split into the pieces that are streamed one by one (one piece = one output token). */
  pieces: string[]
  toolCall?: { id: string; name: string; arguments: string }
  finishReason: FinishReason
  usage: Usage
}

/** A deterministic stand-in for an argument value, from the JSON schema of the parameter. */
function sampleValue(schema: Record<string, unknown> | undefined): unknown {
  const type = Array.isArray(schema?.type) ? schema.type[0] : schema?.type
  if (Array.isArray(schema?.enum) && schema.enum.length) return schema.enum[0]
  switch (type) {
    case 'number':
    case 'integer':
      return 42
    case 'boolean':
      return true
    case 'array':
      return [sampleValue(schema?.items as Record<string, unknown>)]
    case 'object':
      return sampleArguments(schema ?? {})
    default:
      return 'Paris'
  }
}

function sampleArguments(schema: Record<string, unknown>): Record<string, unknown> {
  const properties = (schema.properties ?? {}) as Record<string, Record<string, unknown>>
  const required = Array.isArray(schema.required) ? (schema.required as string[]) : Object.keys(properties)
  const result: Record<string, unknown> = {}
  for (const name of required) result[name] = sampleValue(properties[name])
  return result
}

/** Rough and deterministic: a token per four characters, as tokenizers average on English. */
function countMockTokens(text: string): number {
  return Math.ceil(text.length / 4)
}

export function planMockAnswer(request: ChatRequest): MockAnswer {
  const last = request.messages.at(-1)
  const lastParts: ContentPart[] = last?.content ?? []
  const toolResult = lastParts.find((part) => part.type === 'tool-result')
  let inputTokens = request.system.reduce((sum, text) => sum + countMockTokens(text) + 3, 0)
  for (const message of request.messages) {
    for (const part of message.content) {
      if (part.type === 'text' || part.type === 'reasoning') inputTokens += countMockTokens(part.text)
      else if (part.type === 'tool-call') inputTokens += countMockTokens(part.name + part.arguments)
      else if (part.type === 'tool-result') inputTokens += countMockTokens(part.content)
    }
    inputTokens += 3
  }
  const reasoning = request.reasoning?.include || request.reasoning?.budgetTokens ? 'Let me think about that.' : undefined
  const maxTokens = request.maxOutputTokens ?? Infinity
  const tool = pickTool(request)
  let pieces: string[] = []
  let toolCall: MockAnswer['toolCall']
  let finishReason: FinishReason = 'stop'
  if (tool) {
    toolCall = { id: `call_mock_${request.messages.length}`, name: tool.name, arguments: JSON.stringify(sampleArguments(tool.parameters)) }
    finishReason = 'tool-calls'
  } else if (request.responseFormat?.type === 'json-schema' || request.responseFormat?.type === 'json') {
    // Structured output: one object that fits the schema, so SDK parse helpers work against the mock too.
    const format = request.responseFormat
    pieces = [
      JSON.stringify(format.type === 'json-schema' ? sampleArguments(format.schema) : { answer: 'Hello from the Tollgate mock provider' }),
    ]
  } else {
    const prompt =
      toolResult?.type === 'tool-result'
        ? `the tool answered ${toolResult.content}`
        : `you said: ${userWords(last).split(/\s+/).slice(0, 12).join(' ')}`
    const words = `Hello from the Tollgate mock provider, ${prompt}`.split(' ')
    pieces = words.map((word, index) => (index === 0 ? word : ` ${word}`))
    if (pieces.length > maxTokens) {
      pieces = pieces.slice(0, maxTokens)
      finishReason = 'length'
    }
  }
  const reasoningTokens = reasoning ? countMockTokens(reasoning) : 0
  const outputTokens = pieces.length + (toolCall ? countMockTokens(toolCall.name + toolCall.arguments) : 0) + reasoningTokens
  return {
    reasoning,
    pieces,
    toolCall,
    finishReason,
    usage: { inputTokens, cachedInputTokens: 0, cacheWriteTokens: 0, outputTokens, reasoningTokens },
  }
}
