import { jsonResponse } from '../edge/respond.ts'
import type { Services } from '../edge/services.ts'
import { anthropicMessages } from '../operations/chat/protocols/anthropic/protocol.ts'
import { geminiGenerate } from '../operations/chat/protocols/gemini/protocol.ts'
import { openAiChat } from '../operations/chat/protocols/openai-chat/protocol.ts'
import type { Caller } from '../relay/types.ts'
import { isGeminiRequest } from './gemini/read-secret.ts'
import { defineEndpoint } from './shared/define-endpoint.ts'

async function answerKey(services: Services, key: Caller): Promise<Response> {
  const models = services.relay.modelsFor(key).map((model) => model.id)
  return jsonResponse(await services.budgetService.describeKey(key, models))
}

const byProtocol = {
  anthropic: defineEndpoint(anthropicMessages, answerKey),
  gemini: defineEndpoint(geminiGenerate, answerKey),
  openai: defineEndpoint(openAiChat, answerKey),
}

/**
 * GET /v1/key: the calling key's limits, budgets (spent, remaining, reset per scope), expiry and models — so a client
 * or a CLI's status line can show them. Authenticated each vendor's way, told apart as GET /v1/models is: an Anthropic
 * key header (`x-api-key`) or `anthropic-version`, a Google key (`x-goog-api-key`, `?key=`), else an OpenAI Bearer
 * token; a refusal comes in that protocol's error shape. The answer is the same JSON whichever way it was asked.
 */
export function serveKey(services: Services, request: Request): Promise<Response> {
  if (request.headers.has('x-api-key') || request.headers.has('anthropic-version')) return byProtocol.anthropic(services, request)
  if (isGeminiRequest(request)) return byProtocol.gemini(services, request)
  return byProtocol.openai(services, request)
}
