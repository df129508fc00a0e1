import { Elysia } from 'elysia'
import { GatewayError } from '../../core/errors.ts'
import type { Services } from '../../edge/services.ts'
import { geminiErrorResponse } from './error-response.ts'
import { countGeminiTokens, generateContent } from './generate.ts'
import { getGeminiModel, listGeminiModels } from './models.ts'

/** The model id after /v1beta/models/; it may hold slashes and colons (`llama3:8b`), so it is taken whole. */
function readModel(rest: string): string {
  try {
    return decodeURIComponent(rest).replace(/^models\//, '')
  } catch {
    throw new GatewayError('invalid_request', 'The request path is not valid URL encoding.')
  }
}

/** `{model}:{method}`: the method is whatever follows the last colon. */
function splitPath(rest: string): { model: string; method?: string } {
  const path = readModel(rest)
  const colon = path.lastIndexOf(':')
  return colon === -1 ? { model: path } : { model: path.slice(0, colon), method: path.slice(colon + 1) }
}

async function callMethod(services: Services, request: Request, rest: string): Promise<Response> {
  try {
    const { model, method } = splitPath(rest)
    if (method === 'generateContent' || method === 'streamGenerateContent') return generateContent(services, request, model, method)
    if (method === 'countTokens') return countGeminiTokens(services, request, model)
    throw new GatewayError('not_found', method ? `Method '${method}' is not supported by this gateway.` : 'POST needs a method, e.g. models/{model}:generateContent.', { code: 'unknown_method' })
  } catch (error) {
    return geminiErrorResponse(error)
  }
}

/**
 * Gemini clients: the CLI speaks /v1beta, the @google/genai SDK (3.x) defaults to /v1. Under /v1, GET /v1/models is
 * OpenAI's too, so a GET there is Gemini's only when it carries a Google API key (`x-goog-api-key` or `?key=`),
 * which OpenAI and Anthropic clients never send.
 */
export function isGeminiRequest(request: Request): boolean {
  const url = new URL(request.url)
  return url.pathname.startsWith('/v1beta/') || request.headers.has('x-goog-api-key') || url.searchParams.has('key')
}

function getModels(services: Services, request: Request, rest: string): Promise<Response> | Response {
  if (rest === '' || rest === '/') return listGeminiModels(services, request)
  try {
    return getGeminiModel(services, request, readModel(rest.replace(/^\//, '')))
  } catch (error) {
    return geminiErrorResponse(error)
  }
}

/** Elysia cannot route `{model}:{method}` in one segment, so one wildcard route per version splits it here. */
export function geminiRoutes(services: Services) {
  return new Elysia({ name: 'protocol-gemini' })
    // Runs before routing (a global hook), so OpenAI's own GET /v1/models route stays as it is.
    .onRequest(({ request }) => {
      if (request.method !== 'GET' || !request.url.includes('/v1/models')) return
      const path = new URL(request.url).pathname
      if ((path === '/v1/models' || path.startsWith('/v1/models/')) && isGeminiRequest(request)) {
        return getModels(services, request, path.slice('/v1/models'.length))
      }
    })
    .get('/v1beta/models', ({ request }) => listGeminiModels(services, request))
    .get('/v1beta/models/*', ({ request, params }) => getModels(services, request, `/${params['*']}`))
    .post('/v1beta/models/*', ({ request, params }) => callMethod(services, request, params['*']), { parse: 'none' })
    .post('/v1/models/*', ({ request, params }) => callMethod(services, request, params['*']), { parse: 'none' })
}
