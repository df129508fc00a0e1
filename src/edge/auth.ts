import { GatewayError } from '../core/errors.ts'
import type { KeyRecord } from '../domain/records.ts'
import type { KeyCache } from '../domain/key-cache.ts'
import { keyStatus } from '../domain/keys.ts'

/** The secret from `Authorization: Bearer …`, or from a protocol's own header (`x-api-key`, `x-goog-api-key`). */
export function bearerToken(request: Request): string | undefined {
  const header = request.headers.get('authorization')
  if (!header) return undefined
  // The usual header, `Bearer <token>` with nothing else around, is one slice: no match array per request.
  if (header.startsWith('Bearer ') && plainToken(header, 7)) return header.slice(7)
  const match = /^Bearer\s+(.+)$/i.exec(header.trim())
  return match?.[1]?.trim()
}

/** Whether `header` from `from` on is one run of visible characters (nothing the regex above would trim or split). */
function plainToken(header: string, from: number): boolean {
  if (header.length === from) return false
  for (let index = from; index < header.length; index++) {
    const code = header.charCodeAt(index)
    if (code <= 32 || (code >= 127 && code <= 160) || code > 255) return false
  }
  return true
}

/**
 * A key that may make requests now, or a 401 that says why not (without saying whether a key exists).
 * `knownCaller` answers the usual case, a key in memory, at once (the hot path saves an async frame: callers write
 * `knownCaller(keys, secret) ?? await lookUpCaller(keys, secret)`); `lookUpCaller` asks the store.
 */
export function knownCaller(keys: KeyCache, secret: string | undefined): KeyRecord | undefined {
  const key = keys.known(requireSecret(secret))
  return key && usable(key)
}

export async function lookUpCaller(keys: KeyCache, secret: string | undefined): Promise<KeyRecord> {
  return usable(await keys.lookUp(requireSecret(secret)))
}

function requireSecret(secret: string | undefined): string {
  if (secret) return secret
  throw new GatewayError('authentication', 'Missing API key: send it as "Authorization: Bearer <key>".', { code: 'missing_api_key' })
}

function usable(key: KeyRecord | undefined): KeyRecord {
  if (!key) throw new GatewayError('authentication', 'Invalid API key.', { code: 'invalid_api_key' })
  const status = keyStatus(key)
  if (status === 'revoked') throw new GatewayError('authentication', 'This API key has been revoked.', { code: 'revoked_api_key' })
  if (status === 'expired') throw new GatewayError('authentication', 'This API key has expired.', { code: 'expired_api_key' })
  return key
}
