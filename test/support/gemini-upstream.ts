import { readFixture } from './fixtures.ts'
import { jsonReply, sseResponse, startUpstream, type RecordedRequest, type TestUpstream } from './upstream.ts'

/**
 * A small Gemini API (v1beta generateContent / streamGenerateContent?alt=sse). It answers with text, or with a whole
 * functionCall when functions are declared and the last turn is not a function response; with includeThoughts it
 * thinks first and signs the part after its thoughts, as Gemini does. Usage is fixed (prompt 11 of which 3 cached,
 * answer 5, thoughts 2) so tests can check billing to the unit. Two model names fail on purpose:
 * `gemini-missing` answers the recorded 404 (a JSON body labelled text/event-stream), `gemini-broken` fails mid-stream.
 */
export const geminiUsage = {
  promptTokenCount: 11,
  cachedContentTokenCount: 3,
  candidatesTokenCount: 5,
  thoughtsTokenCount: 2,
  totalTokenCount: 18,
}
export const upstreamSignature = 'c2lnLWZyb20tZ2VtaW5pLXVwc3RyZWFt'

type Part = Record<string, any>

export function geminiAnswer(body: any): { parts: Part[] } {
  const contents: { parts: Part[] }[] = body.contents ?? []
  const lastParts = contents.at(-1)?.parts ?? []
  const result = lastParts.find((part) => part.functionResponse)?.functionResponse
  const declared = (body.tools ?? []).flatMap((tool: any) => tool.functionDeclarations ?? [])
  const mode = body.toolConfig?.functionCallingConfig?.mode
  const thinking = body.generationConfig?.thinkingConfig?.includeThoughts === true
  const parts: Part[] = thinking ? [{ text: 'Thinking it over.', thought: true }] : []
  if (declared.length && !result && mode !== 'NONE') {
    parts.push({ functionCall: { name: declared[0].name, args: { city: 'Paris', unit: 'celsius' } } })
  } else {
    const said = result
      ? `The tool said ${typeof result.response?.output === 'string' ? result.response.output : JSON.stringify(result.response)}`
      : 'Hello from gemini upstream'
    for (const word of said.split(/(?= )/)) parts.push({ text: word })
  }
  // Gemini signs the first part after the thinking (always, for a function call on Gemini 3).
  const first = parts.find((part) => !part.thought)
  if (first && (thinking || first.functionCall)) first.thoughtSignature = upstreamSignature
  return { parts }
}

const base = (model: string) => ({ modelVersion: `${model}-001`, responseId: 'gemini-upstream-1' })

export type GeminiPlan = (body: any) => { parts: Part[] }

function streamChunks(model: string, parts: Part[]): string[] {
  const frame = (chunk: unknown) => `data: ${JSON.stringify(chunk)}\r\n\r\n`
  return parts.map((part, index) => {
    const last = index === parts.length - 1
    const soFar = index + 1
    // Usage is cumulative on every chunk, the prompt's counts whole from the first; only the last one is complete.
    const usage = last
      ? geminiUsage
      : { promptTokenCount: 11, cachedContentTokenCount: 3, candidatesTokenCount: soFar, totalTokenCount: 11 + soFar }
    return frame({
      candidates: [{ content: { role: 'model', parts: [part] }, ...(last && { finishReason: 'STOP' }), index: 0 }],
      usageMetadata: usage,
      ...base(model),
    })
  })
}

/** `plan` replaces the default answers (parts of the model's turn, streamed one per chunk). */
export const handleGemini =
  (plan: GeminiPlan = geminiAnswer) =>
  (request: RecordedRequest): Response => {
    const match = /^\/v1beta\/models\/([^:]+):(generateContent|streamGenerateContent)(\?alt=sse)?$/.exec(request.path)
    if (!match) return jsonReply({ error: { code: 404, message: `no route ${request.path}`, status: 'NOT_FOUND' } }, 404)
    const [, model, method, sse] = match
    if (model === 'gemini-missing') {
      return new Response(readFixture('gemini/error-404-not-found.json'), { status: 404, headers: { 'content-type': 'text/event-stream' } })
    }
    if (method === 'generateContent') {
      const { parts } = plan(request.body)
      return jsonReply({
        candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }],
        usageMetadata: geminiUsage,
        ...base(model!),
      })
    }
    if (!sse) return jsonReply({ error: { code: 400, message: 'this fake speaks only alt=sse', status: 'INVALID_ARGUMENT' } }, 400)
    const chunks = streamChunks(model!, plan(request.body).parts)
    if (model === 'gemini-broken') {
      // Paced, so the first chunk is on its way to the client before the error: sent in one burst, the gateway would see
      // the error before passing anything on and retry instead (the client never got a byte, so it may).
      return sseResponse(
        [
          chunks[0]!,
          `data: ${JSON.stringify({ error: { code: 503, message: 'The model is overloaded. Please try again later.', status: 'UNAVAILABLE' } })}\r\n\r\n`,
        ],
        30,
      )
    }
    return sseResponse(chunks)
  }

export function startGeminiUpstream(): TestUpstream {
  return startUpstream(handleGemini())
}
