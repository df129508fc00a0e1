import { sessionLifetimeMs } from '../../domain/sessions.ts'

export const sessionCookieName = 'tollgate_session'

export function readCookie(request: Request, name: string): string | undefined {
  for (const part of (request.headers.get('cookie') ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=')
    if (key === name) return value.join('=')
  }
  return undefined
}

/** Over TLS directly, or behind a proxy that terminated it and said so. */
export function isSecureRequest(request: Request): boolean {
  if (new URL(request.url).protocol === 'https:') return true
  return request.headers.get('x-forwarded-proto')?.split(',')[0]?.trim().toLowerCase() === 'https'
}

/**
 * HttpOnly keeps the token from scripts, SameSite=Strict keeps it off cross-site requests, and Path=/console
 * keeps it off the public API altogether (which would ignore it anyway).
 */
export function sessionCookie(request: Request, token: string | undefined): string {
  const secure = isSecureRequest(request) ? '; Secure' : ''
  const lifetime = token === undefined ? 0 : Math.floor(sessionLifetimeMs / 1000)
  return `${sessionCookieName}=${token ?? ''}; Path=/console; HttpOnly; SameSite=Strict; Max-Age=${lifetime}${secure}`
}
