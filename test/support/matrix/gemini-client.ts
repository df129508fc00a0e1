import { ApiError, type Content, type GenerateContentParameters, type GenerateContentResponse, GoogleGenAI, type Part } from '@google/genai'
import { history, type Scenario, scenarioSpecs, system, weatherTool } from './conversation.ts'
import { failureOf, type MatrixClient, recordingFetch, type Reply, requestTimeoutMs, type SdkError } from './client.ts'

const typeByStatus: Record<number, string> = { 400: 'INVALID_ARGUMENT', 429: 'RESOURCE_EXHAUSTED', 502: 'INTERNAL' }

/** The SDK puts the Google error body in the message; its `status` is the protocol's error type. */
function describeError(error: unknown): SdkError {
  if (!(error instanceof ApiError)) throw error
  let type: string | undefined
  try {
    type = JSON.parse(error.message.slice(error.message.indexOf('{'))).error?.status
  } catch {}
  return { class: error.constructor.name, status: error.status, type, message: error.message }
}

/** Gemini clients (the SDK's automatic function calling, the Gemini CLI) send calls and results without ids. */
function params(model: string, scenario: Scenario): GenerateContentParameters {
  const { prompt, calls, replay } = scenarioSpecs[scenario]
  const contents: Content[] = []
  if (!prompt)
    for (const turn of history) contents.push({ role: turn.role === 'assistant' ? 'model' : 'user', parts: [{ text: turn.text }] })
  else contents.push({ role: 'user', parts: [{ text: prompt }] })
  if (replay) {
    contents.push({ role: 'model', parts: calls.map((call) => ({ functionCall: { name: weatherTool.name, args: call.args } })) })
    contents.push({
      role: 'user',
      parts: calls.map((call) => ({ functionResponse: { name: weatherTool.name, response: { output: call.output } } })),
    })
  }
  const tools =
    scenario === 'history'
      ? undefined
      : [
          {
            functionDeclarations: [
              { name: weatherTool.name, description: weatherTool.description, parametersJsonSchema: weatherTool.parameters },
            ],
          },
        ]
  return {
    model,
    contents,
    config: {
      systemInstruction: system,
      maxOutputTokens: 300,
      abortSignal: AbortSignal.timeout(requestTimeoutMs),
      ...(tools && { tools }),
    },
  }
}

/** A whole answer, or the chunks of a streamed one laid end to end (the SDK has no accumulator of its own). */
function read(responses: GenerateContentResponse[], sent: string): Reply {
  const parts: Part[] = responses.flatMap((response) => response.candidates?.[0]?.content?.parts ?? [])
  const text = parts.map((part) => (part.thought ? '' : (part.text ?? ''))).join('')
  const calls = parts.flatMap((part) =>
    part.functionCall ? [{ id: part.functionCall.id, name: part.functionCall.name!, args: part.functionCall.args }] : [],
  )
  const usage = responses.findLast((response) => response.usageMetadata)?.usageMetadata ?? {}
  const reasoning = usage.thoughtsTokenCount ?? 0
  return {
    text,
    calls,
    stop: responses.at(-1)?.candidates?.[0]?.finishReason,
    sent,
    usage: {
      input: usage.promptTokenCount ?? 0,
      cached: usage.cachedContentTokenCount ?? 0,
      cacheWrite: 0,
      output: (usage.candidatesTokenCount ?? 0) + reasoning,
      reasoning,
    },
  }
}

/** `models.generateContent` and `models.generateContentStream`. */
export function geminiClient(siteUrl: string, key: string): MatrixClient {
  const recorder = recordingFetch()
  const ai = new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: siteUrl, timeout: requestTimeoutMs, fetch: recorder.fetch } })
  return {
    name: 'gemini',
    native: 'gemini',
    expresses: { cacheWrite: false, reasoning: true },
    stops: { text: 'STOP', tool: 'STOP', length: 'MAX_TOKENS' },
    expectedError: (status) => ({ class: 'ApiError', status, type: typeByStatus[status]! }),
    async ask(model, scenario, stream) {
      if (!stream) return read([await ai.models.generateContent(params(model, scenario))], recorder.sent())
      const chunks: GenerateContentResponse[] = []
      for await (const chunk of await ai.models.generateContentStream(params(model, scenario))) chunks.push(chunk)
      return read(chunks, recorder.sent())
    },
    fail: (model, stream) =>
      failureOf(async (onText) => {
        if (!stream) return ai.models.generateContent(params(model, 'history'))
        for await (const chunk of await ai.models.generateContentStream(params(model, 'history'))) onText(chunk.text ?? '')
      }, describeError),
  }
}
