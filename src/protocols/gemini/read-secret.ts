import { GatewayError } from '../../core/errors.ts'
import type { KeyRecord } from '../../domain/records.ts'
import { authenticate, bearerToken } from '../../edge/auth.ts'
import type { Services } from '../../edge/services.ts'

/** Gemini clients send the key as `x-goog-api-key` (the SDK, the CLI) or `?key=` (curl examples, older clients). */
export async function authenticateGemini(services: Services, request: Request): Promise<KeyRecord> {
  const secret = request.headers.get('x-goog-api-key') ?? new URL(request.url).searchParams.get('key') ?? bearerToken(request)
  if (!secret) {
    throw new GatewayError('authentication', 'Missing API key: send it in the x-goog-api-key header or the key query parameter.', { code: 'missing_api_key' })
  }
  return authenticate(services.keys, secret)
}
