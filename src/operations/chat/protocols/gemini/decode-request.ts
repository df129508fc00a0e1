import { invalidRequest } from '../../../../core/errors.ts'
import type { ChatRequest, ResponseFormat, ToolChoice, ToolDefinition } from '../../core/ir.ts'
import {
  type Json,
  optionalBoolean,
  optionalNumber,
  optionalStops,
  optionalString,
  requireArray,
  requireObject,
  requireString,
} from '../../../../protocols/shared/validate.ts'
import { decodeContents, decodeSystemInstruction } from './decode-contents.ts'
import { readField } from '../../../../protocols/gemini/read-field.ts'
import { openApiToJsonSchema } from './openapi-schema.ts'
import { inspectGeminiBilling } from './billing-checks.ts'

function optionalObject(value: unknown, field: string): Json | undefined {
  return value === undefined || value === null ? undefined : requireObject(value, field)
}

/** Only functionDeclarations reach the IR; built-in tools (googleSearch…) survive only on the passthrough path. */
function decodeTools(value: unknown): ToolDefinition[] | undefined {
  if (value === undefined || value === null) return undefined
  const tools: ToolDefinition[] = []
  for (const [index, item] of requireArray(value, 'tools').entries()) {
    const tool = requireObject(item, `tools[${index}]`)
    const declarations = readField(tool, 'functionDeclarations')
    if (declarations === undefined || declarations === null) continue
    for (const [position, entry] of requireArray(declarations, `tools[${index}].functionDeclarations`).entries()) {
      const field = `tools[${index}].functionDeclarations[${position}]`
      const declaration = requireObject(entry, field)
      const openApi = optionalObject(declaration.parameters, `${field}.parameters`)
      const jsonSchema = optionalObject(readField(declaration, 'parametersJsonSchema'), `${field}.parametersJsonSchema`)
      if (openApi && jsonSchema)
        throw invalidRequest(`Invalid value for '${field}': parameters and parametersJsonSchema are mutually exclusive.`, field)
      tools.push({
        name: requireString(declaration.name, `${field}.name`),
        description: optionalString(declaration.description, `${field}.description`),
        parameters: jsonSchema ?? (openApi ? openApiToJsonSchema(openApi) : { type: 'object', properties: {} }),
      })
    }
  }
  return tools.length ? tools : undefined
}

const modes = ['AUTO', 'ANY', 'NONE', 'VALIDATED', 'MODE_UNSPECIFIED']

/** ANY with a list of names narrows the tools offered: the IR has no allow-list, so the others are dropped. */
function decodeToolConfig(value: unknown, tools: ToolDefinition[] | undefined): { toolChoice?: ToolChoice; tools?: ToolDefinition[] } {
  const config = optionalObject(
    readField(optionalObject(value, 'toolConfig') ?? {}, 'functionCallingConfig'),
    'toolConfig.functionCallingConfig',
  )
  if (!config) return { tools }
  const field = 'toolConfig.functionCallingConfig'
  const mode = optionalString(config.mode, `${field}.mode`) ?? 'AUTO'
  if (!modes.includes(mode))
    throw invalidRequest(`Invalid value for '${field}.mode': '${mode}' is not one of AUTO, ANY, NONE.`, `${field}.mode`)
  const allowed = readField(config, 'allowedFunctionNames')
  const names =
    allowed === undefined
      ? undefined
      : requireArray(allowed, `${field}.allowedFunctionNames`).map((name, index) =>
          requireString(name, `${field}.allowedFunctionNames[${index}]`),
        )
  if (mode === 'NONE') return { tools, toolChoice: { type: 'none' } }
  if (mode !== 'ANY') return { tools, toolChoice: { type: 'auto' } }
  if (!names?.length) return { tools, toolChoice: { type: 'required' } }
  for (const name of names) {
    if (!tools?.some((tool) => tool.name === name)) {
      throw invalidRequest(
        `Invalid value for '${field}.allowedFunctionNames': '${name}' is not a declared function.`,
        `${field}.allowedFunctionNames`,
      )
    }
  }
  const narrowed = tools!.filter((tool) => names.includes(tool.name))
  return { tools: narrowed, toolChoice: names.length === 1 ? { type: 'tool', name: names[0]! } : { type: 'required' } }
}

function decodeResponseFormat(config: Json): ResponseFormat | undefined {
  const mime = optionalString(readField(config, 'responseMimeType'), 'generationConfig.responseMimeType')
  const openApi = optionalObject(readField(config, 'responseSchema'), 'generationConfig.responseSchema')
  const jsonSchema = optionalObject(readField(config, 'responseJsonSchema'), 'generationConfig.responseJsonSchema')
  const schema = jsonSchema ?? (openApi ? openApiToJsonSchema(openApi) : undefined)
  if (schema && mime !== 'application/json') {
    throw invalidRequest(
      "Invalid value for 'generationConfig.responseMimeType': a response schema needs responseMimeType 'application/json'.",
      'generationConfig.responseMimeType',
    )
  }
  if (schema) return { type: 'json-schema', schema }
  if (mime === 'application/json') return { type: 'json' }
  if (mime === undefined || mime === 'text/plain') return undefined
  throw invalidRequest(
    `Invalid value for 'generationConfig.responseMimeType': '${mime}' is not supported; use text/plain or application/json.`,
    'generationConfig.responseMimeType',
  )
}

const levels: Record<string, 'minimal' | 'low' | 'medium' | 'high'> = { MINIMAL: 'minimal', LOW: 'low', MEDIUM: 'medium', HIGH: 'high' }

/** thinkingConfig: a budget of -1 means "let the model decide" (no setting), 0 means thinking off. */
function decodeThinking(value: unknown): ChatRequest['reasoning'] {
  const field = 'generationConfig.thinkingConfig'
  const config = optionalObject(value, field)
  if (!config) return undefined
  const include = optionalBoolean(readField(config, 'includeThoughts'), `${field}.includeThoughts`)
  const budget = optionalNumber(readField(config, 'thinkingBudget'), `${field}.thinkingBudget`, { min: -1, integer: true })
  const level = optionalString(readField(config, 'thinkingLevel'), `${field}.thinkingLevel`)
  if (level !== undefined && !levels[level])
    throw invalidRequest(
      `Invalid value for '${field}.thinkingLevel': '${level}' is not one of MINIMAL, LOW, MEDIUM, HIGH.`,
      `${field}.thinkingLevel`,
    )
  const reasoning: NonNullable<ChatRequest['reasoning']> = {}
  if (include !== undefined) reasoning.include = include
  if (budget !== undefined && budget >= 0) reasoning.budgetTokens = budget
  if (budget === 0) reasoning.effort = 'minimal'
  if (level) reasoning.effort = levels[level]
  return Object.keys(reasoning).length ? reasoning : undefined
}

/** `responseLogprobs` (with `logprobs` alternatives per token) → the IR's request for log probabilities. */
function decodeLogprobs(config: Json): ChatRequest['logprobs'] {
  const wanted = optionalBoolean(readField(config, 'responseLogprobs'), 'generationConfig.responseLogprobs')
  const top = optionalNumber(config.logprobs, 'generationConfig.logprobs', { min: 0, max: 20, integer: true })
  return wanted ? { top: top ?? 0 } : undefined
}

/** `safetySettings`: each a category and its threshold, kept for a Gemini upstream (the others have no such setting). */
function decodeSafetySettings(value: unknown): ChatRequest['safetySettings'] {
  if (value === undefined || value === null) return undefined
  return requireArray(value, 'safetySettings').map((item, index) => {
    const setting = requireObject(item, `safetySettings[${index}]`)
    return {
      category: requireString(setting.category, `safetySettings[${index}].category`),
      threshold: requireString(setting.threshold, `safetySettings[${index}].threshold`),
    }
  })
}

/** A GenerateContentRequest body → the IR; the model and streaming come from the URL. */
export function decodeGeminiRequest(body: Json, model: string, stream: boolean): ChatRequest {
  const billing = inspectGeminiBilling(body)
  const config = optionalObject(readField(body, 'generationConfig'), 'generationConfig') ?? {}
  const field = (name: string) => `generationConfig.${name}`
  const candidates = optionalNumber(readField(config, 'candidateCount'), field('candidateCount'), { min: 1, integer: true })
  if (candidates !== undefined && candidates !== 1)
    throw invalidRequest(
      `Invalid value for '${field('candidateCount')}': this gateway returns one candidate per request.`,
      field('candidateCount'),
    )
  const { tools, toolChoice } = decodeToolConfig(readField(body, 'toolConfig'), decodeTools(body.tools))
  return {
    model,
    system: decodeSystemInstruction(readField(body, 'systemInstruction')),
    messages: decodeContents(body.contents),
    stream,
    maxOutputTokens: optionalNumber(readField(config, 'maxOutputTokens'), field('maxOutputTokens'), { min: 1, integer: true }),
    temperature: optionalNumber(config.temperature, field('temperature'), { min: 0, max: 2 }),
    topP: optionalNumber(readField(config, 'topP'), field('topP'), { min: 0, max: 1 }),
    topK: optionalNumber(readField(config, 'topK'), field('topK'), { min: 1, integer: true }),
    stop: optionalStops(readField(config, 'stopSequences'), field('stopSequences'), false),
    seed: optionalNumber(config.seed, field('seed'), { integer: true }),
    presencePenalty: optionalNumber(readField(config, 'presencePenalty'), field('presencePenalty'), { min: -2, max: 2 }),
    frequencyPenalty: optionalNumber(readField(config, 'frequencyPenalty'), field('frequencyPenalty'), { min: -2, max: 2 }),
    logprobs: decodeLogprobs(config),
    safetySettings: decodeSafetySettings(readField(body, 'safetySettings')),
    tools,
    toolChoice,
    responseFormat: decodeResponseFormat(config),
    reasoning: decodeThinking(readField(config, 'thinkingConfig')),
    ...billing,
  }
}
