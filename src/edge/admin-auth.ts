import type { GatewayCode } from '../core/error-codes.ts'
import { GatewayError } from '../core/errors.ts'
import { adminTokenPrefix, allowsWrites, authenticateAdminToken } from '../domain/admin-tokens.ts'
import type { AdminScope, AdminTokenRecord } from '../domain/records.ts'
import type { Services } from './services.ts'
import { bearerToken } from './auth.ts'

/** A 401 that tells a client which scheme to use, as HTTP asks of every 401. */
const unauthenticated = (message: string, code: GatewayCode) =>
  new GatewayError('authentication', message, { code, headers: { 'www-authenticate': 'Bearer realm="tollgate-admin"' } })

/**
 * The admin token a request carries as `Authorization: Bearer tga-…`, with at least the scope `need`, or the 401/403
 * that says why not. API keys (`tg-…`) and console cookies are refused by name: each credential opens one door only.
 */
export async function requireAdminToken(services: Services, request: Request, need: AdminScope): Promise<AdminTokenRecord> {
  const secret = bearerToken(request)
  if (!secret)
    throw unauthenticated(
      `Missing admin token: send it as "Authorization: Bearer ${adminTokenPrefix}…" (tollgate admin-token create).`,
      'missing_admin_token',
    )
  if (!secret.startsWith(adminTokenPrefix)) {
    throw unauthenticated(
      `This needs an admin token (${adminTokenPrefix}…); API keys and console sign-ins do not work here.`,
      'admin_token_required',
    )
  }
  const token = await authenticateAdminToken(services.store.adminTokens, secret)
  if (!token) throw unauthenticated('Invalid or revoked admin token.', 'invalid_admin_token')
  if (need === 'full' && !allowsWrites(token)) {
    throw new GatewayError('permission', 'This admin token is read-only; changes need a token with scope "full".', {
      code: 'read_only_token',
    })
  }
  return token
}
