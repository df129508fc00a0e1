import { type AnswerPlan, planAnthropicAnswer } from '../anthropic-upstream.ts'
import { geminiAnswer, type GeminiPlan, upstreamSignature } from '../gemini-upstream.ts'
import { openAiAnswer, type OpenAiAnswer } from '../openai-upstream.ts'
import type { RecordedRequest } from '../upstream.ts'

/**
 * The fakes' default answers, plus what the matrix needs beyond them: a prompt naming Rome as well as Paris gets two
 * calls in one turn, and every tool result sent back is repeated in the answer ("The tool said A; B"), in the order
 * the upstream received them, so a result lost, duplicated or swapped on the way shows in the text.
 */
const cities = (prompt: string) => (/\bRome\b/.test(prompt) ? ['Paris', 'Rome'] : undefined)
export const answerTo = (outputs: string[]) => `The tool said ${outputs.join('; ')}`

/** What every fake answers when asked for structured output: an object that fits `structuredSchema`. */
export const structuredAnswer = { city: 'Paris', temperature: 21 }
export const structuredSchema = {
  type: 'object',
  properties: { city: { type: 'string' }, temperature: { type: 'number' } },
  required: ['city', 'temperature'],
  additionalProperties: false,
} as const

export function planOpenAi(request: RecordedRequest): OpenAiAnswer {
  if (request.body.response_format?.type === 'json_schema' || request.body.response_format?.type === 'json_object')
    return { text: JSON.stringify(structuredAnswer) }
  const messages: any[] = request.body.messages
  const results: string[] = []
  for (let index = messages.length - 1; messages[index]?.role === 'tool'; index--) results.unshift(messages[index].content)
  if (results.length) return { text: answerTo(results) }
  const last = messages.at(-1)
  const both = request.body.tools?.length && typeof last.content === 'string' ? cities(last.content) : undefined
  if (!both) return openAiAnswer(request)
  const name = request.body.tools[0].function.name
  return {
    toolCalls: both.map((city, index) => ({
      id: `call_upstream_${index + 1}`,
      name,
      arguments: JSON.stringify({ city, unit: 'celsius' }),
    })),
  }
}

export const planAnthropic: AnswerPlan = (body) => {
  if (body.output_config?.format?.type === 'json_schema') return { text: JSON.stringify(structuredAnswer) }
  // A forced tool is called at once, without words first (the gateway's JSON mode relies on it).
  if (body.tool_choice?.type === 'tool') return { toolCall: { id: 'toolu_forced_1', name: body.tool_choice.name, input: structuredAnswer } }
  const last = body.messages.at(-1)
  const blocks: any[] = Array.isArray(last.content) ? last.content : [{ type: 'text', text: last.content }]
  const results = blocks.filter((block) => block.type === 'tool_result')
  if (results.length)
    return {
      text: answerTo(
        results.map((block) => (typeof block.content === 'string' ? block.content : block.content.map((part: any) => part.text).join(''))),
      ),
    }
  const both = body.tools?.length ? cities(blocks.map((block) => block.text ?? '').join('')) : undefined
  if (!both) return planAnthropicAnswer(body)
  const name = body.tools[0].name
  return {
    text: 'Let me check.',
    toolCalls: both.map((city, index) => ({ id: `toolu_upstream_${index + 1}`, name, input: { city, unit: 'celsius' } })),
  }
}

export const planGemini: GeminiPlan = (body) => {
  if (body.generationConfig?.responseMimeType === 'application/json') return { parts: [{ text: JSON.stringify(structuredAnswer) }] }
  const parts: any[] = body.contents.at(-1)?.parts ?? []
  const results = parts.filter((part) => part.functionResponse).map((part) => part.functionResponse.response)
  if (results.length) {
    const said = answerTo(results.map((response) => (typeof response?.output === 'string' ? response.output : JSON.stringify(response))))
    return { parts: said.split(/(?= )/).map((text) => ({ text })) }
  }
  const declared = (body.tools ?? []).flatMap((tool: any) => tool.functionDeclarations ?? [])
  const both = declared.length ? cities(parts.map((part) => part.text ?? '').join('')) : undefined
  if (!both) return geminiAnswer(body)
  // Gemini signs the first function call of a turn, and only that one.
  return {
    parts: both.map((city, index) => ({
      functionCall: { name: declared[0].name, args: { city, unit: 'celsius' } },
      ...(index === 0 && { thoughtSignature: upstreamSignature }),
    })),
  }
}
