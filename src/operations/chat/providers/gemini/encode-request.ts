import type { ChatRequest, ToolChoice } from '../../core/ir.ts'
import type { Target } from '../../../../core/provider.ts'
import { encodeGeminiParts, type GeminiPart } from '../../wire/gemini/parts.ts'

/**
 * Gemini 3 rejects a history whose function calls lack the thought signature it issued. Calls that came from
 * another vendor never had one; Google documents this placeholder for exactly that case.
 */
const foreignCallSignature = 'skip_thought_signature_validator'

/** Thinking budgets for an effort level, for clients (OpenAI's) that name a level instead of a budget. */
const budgetByEffort = { minimal: 512, low: 1024, medium: 8192, high: 24576 } as const

/** Keywords of JSON Schema documents that are not part of the schema itself and that Gemini refuses. */
function cleanSchema(schema: Record<string, unknown>): Record<string, unknown> {
  const { $schema: _schema, strict: _strict, ...rest } = schema
  return rest
}

function encodeContents(request: ChatRequest) {
  const names = new Map<string, string>()
  for (const message of request.messages) {
    for (const part of message.content) if (part.type === 'tool-call') names.set(part.id, part.name)
  }
  const contents: { role: 'user' | 'model'; parts: GeminiPart[] }[] = []
  for (const message of request.messages) {
    const role = message.role === 'assistant' ? 'model' : 'user'
    const parts = encodeGeminiParts(message.content, { nameOf: (id) => names.get(id) })
    if (role === 'model') {
      const firstCall = parts.find((part) => part.functionCall)
      if (firstCall && !firstCall.thoughtSignature) firstCall.thoughtSignature = foreignCallSignature
    }
    if (parts.length === 0) continue
    // Gemini wants turns to alternate; tool results followed by a user's words make one user turn.
    const previous = contents.at(-1)
    if (previous?.role === role) previous.parts.push(...parts)
    else contents.push({ role, parts })
  }
  return contents
}

function encodeToolChoice(choice: ToolChoice) {
  if (choice.type === 'tool') return { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: [choice.name] } }
  return { functionCallingConfig: { mode: choice.type === 'required' ? 'ANY' : choice.type === 'none' ? 'NONE' : 'AUTO' } }
}

function encodeGenerationConfig(request: ChatRequest): Record<string, unknown> {
  const config: Record<string, unknown> = {}
  if (request.maxOutputTokens !== undefined) config.maxOutputTokens = request.maxOutputTokens
  if (request.temperature !== undefined) config.temperature = request.temperature
  if (request.topP !== undefined) config.topP = request.topP
  if (request.topK !== undefined) config.topK = request.topK
  if (request.stop?.length) config.stopSequences = request.stop
  if (request.seed !== undefined) config.seed = request.seed
  if (request.presencePenalty !== undefined) config.presencePenalty = request.presencePenalty
  if (request.frequencyPenalty !== undefined) config.frequencyPenalty = request.frequencyPenalty
  if (request.logprobs) {
    config.responseLogprobs = true
    if (request.logprobs.top > 0) config.logprobs = request.logprobs.top
  }
  const format = request.responseFormat
  if (format?.type === 'json') config.responseMimeType = 'application/json'
  if (format?.type === 'json-schema') {
    config.responseMimeType = 'application/json'
    config.responseJsonSchema = cleanSchema(format.schema)
  }
  const reasoning = request.reasoning
  if (reasoning) {
    const thinking: Record<string, unknown> = {}
    const budget = reasoning.budgetTokens ?? (reasoning.effort ? budgetByEffort[reasoning.effort] : undefined)
    if (budget !== undefined) thinking.thinkingBudget = budget
    const include = reasoning.include ?? (reasoning.budgetTokens ? true : undefined)
    if (include !== undefined) thinking.includeThoughts = include
    if (Object.keys(thinking).length) config.thinkingConfig = thinking
  }
  return config
}

/** IR request → a generateContent body, for `models/{upstream}:generateContent` or its SSE streaming twin. */
export function encodeGeminiRequest(request: ChatRequest, target: Target): { path: string; body: Record<string, unknown> } {
  const body: Record<string, unknown> = { contents: encodeContents(request) }
  if (request.system.length) body.systemInstruction = { parts: request.system.map((text): GeminiPart => ({ text })) }
  if (request.tools?.length) {
    body.tools = [
      {
        functionDeclarations: request.tools.map((tool) => ({
          name: tool.name,
          ...(tool.description && { description: tool.description }),
          // The JSON Schema field takes the IR's schema as it is; the older `parameters` field rejects half of it.
          parametersJsonSchema: cleanSchema(tool.parameters),
        })),
      },
    ]
  }
  if (request.toolChoice && (request.tools?.length || request.toolChoice.type === 'none'))
    body.toolConfig = encodeToolChoice(request.toolChoice)
  if (request.safetySettings?.length) body.safetySettings = request.safetySettings
  const config = encodeGenerationConfig(request)
  if (Object.keys(config).length) body.generationConfig = config
  const method = request.stream ? 'streamGenerateContent?alt=sse' : 'generateContent'
  return { path: `/v1beta/models/${target.upstreamModel.replace(/^models\//, '')}:${method}`, body }
}
