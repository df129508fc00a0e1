import { GatewayError } from '../core/errors.ts'
import type { KeyRecord } from '../domain/records.ts'
import type { KeyCache } from '../domain/key-cache.ts'
import { keyStatus } from '../domain/keys.ts'

/** The secret from `Authorization: Bearer …`, or from a protocol's own header (`x-api-key`, `x-goog-api-key`). */
export function bearerToken(request: Request): string | undefined {
  const header = request.headers.get('authorization')
  if (!header) return undefined
  const match = /^Bearer\s+(.+)$/i.exec(header.trim())
  return match?.[1]?.trim()
}

/**
 * A key that may make requests now, or a 401 that says why not (without saying whether a key exists). A key in
 * memory is returned at once, not as a promise: callers `await` it either way, and the hot path saves an async frame.
 */
export function authenticate(keys: KeyCache, secret: string | undefined): KeyRecord | Promise<KeyRecord> {
  if (!secret) {
    throw new GatewayError('authentication', 'Missing API key: send it as "Authorization: Bearer <key>".', { code: 'missing_api_key' })
  }
  const found = keys.find(secret)
  return found instanceof Promise ? found.then(usable) : usable(found)
}

function usable(key: KeyRecord | undefined): KeyRecord {
  if (!key) throw new GatewayError('authentication', 'Invalid API key.', { code: 'invalid_api_key' })
  const status = keyStatus(key)
  if (status === 'revoked') throw new GatewayError('authentication', 'This API key has been revoked.', { code: 'revoked_api_key' })
  if (status === 'expired') throw new GatewayError('authentication', 'This API key has expired.', { code: 'expired_api_key' })
  return key
}
