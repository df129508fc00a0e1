import { GatewayError } from '../../core/errors.ts'
import type { KeyRecord } from '../../domain/records.ts'
import type { KeyCache } from '../../domain/key-cache.ts'
import { authenticate, bearerToken } from '../../edge/auth.ts'

/** Anthropic clients send the key as `x-api-key`, or as `Authorization: Bearer` in auth-token mode. */
export async function authenticateAnthropic(keys: KeyCache, request: Request): Promise<KeyRecord> {
  const secret = request.headers.get('x-api-key')?.trim() || bearerToken(request)
  if (!secret) throw new GatewayError('authentication', 'Missing API key: send it as "x-api-key: <key>".', { code: 'missing_api_key' })
  return authenticate(keys, secret)
}
