import { GatewayError } from '../../core/errors.ts'
import { bearerToken } from '../../edge/auth.ts'

/** Gemini clients send the key as `x-goog-api-key` (the SDK, the CLI) or `?key=` (curl examples, older clients). */
export function readGeminiSecret(request: Request): string {
  const secret = request.headers.get('x-goog-api-key') ?? new URL(request.url).searchParams.get('key') ?? bearerToken(request)
  if (!secret) {
    throw new GatewayError('authentication', 'Missing API key: send it in the x-goog-api-key header or the key query parameter.', {
      code: 'missing_api_key',
    })
  }
  return secret
}

/**
 * Whether a request under /v1 is a Gemini client's: GET /v1/models is OpenAI's and Anthropic's too, and only a
 * Gemini client carries a Google API key (`x-goog-api-key` or `?key=`). Everything under /v1beta is Gemini's.
 */
export function isGeminiRequest(request: Request): boolean {
  if (request.headers.has('x-goog-api-key')) return true
  const url = new URL(request.url)
  return url.pathname.startsWith('/v1beta/') || url.searchParams.has('key')
}
