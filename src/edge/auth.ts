import { GatewayError } from '../core/errors.ts'
import type { KeyRecord } from '../domain/records.ts'
import type { KeyCache } from '../domain/key-cache.ts'
import { keyStatus } from '../domain/keys.ts'

/** The secret from `Authorization: Bearer …`, or from a protocol's own header (`x-api-key`, `x-goog-api-key`). */
export function bearerToken(request: Request): string | undefined {
  const header = request.headers.get('authorization')
  if (!header) return undefined
  // `Bearer` (any case), white space, the secret: read by hand, as a regular expression's match was an array and a
  // string more a request.
  const text = header.trim()
  if (text.length < 8 || !startsWithBearer(text) || !isSpace(text.charCodeAt(6))) return undefined
  let start = 7
  while (isSpace(text.charCodeAt(start))) start++
  return start < text.length ? text.slice(start) : undefined
}

const bearer = 'bearer'

function startsWithBearer(text: string): boolean {
  for (let index = 0; index < bearer.length; index++) if ((text.charCodeAt(index) | 32) !== bearer.charCodeAt(index)) return false
  return true
}

/** What `\s` matches in a header value (Latin-1): tab to carriage return, space, no-break space. */
function isSpace(code: number): boolean {
  return code === 32 || (code >= 9 && code <= 13) || code === 160
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
