import { GatewayError } from '../../core/errors.ts'
import { bearerToken } from '../../edge/auth.ts'

/** Anthropic clients send the key as `x-api-key`, or as `Authorization: Bearer` in auth-token mode. */
export function readAnthropicSecret(request: Request): string {
  const secret = request.headers.get('x-api-key')?.trim() || bearerToken(request)
  if (!secret) throw new GatewayError('authentication', 'Missing API key: send it as "x-api-key: <key>".', { code: 'missing_api_key' })
  return secret
}
