import type { GatewayCode } from '../../core/error-codes.ts'
import { timingSafeEqual } from 'node:crypto'
import { GatewayError } from '../../core/errors.ts'
import { type Actor, userActor } from '../../domain/actor.ts'
import type { SessionRecord, UserRecord } from '../../domain/records.ts'
import { resumeSession } from '../../domain/sessions.ts'
import { clientAddress } from '../../edge/client-address.ts'
import type { Services } from '../../edge/services.ts'
import { readCookie, sessionCookieName } from './cookies.ts'

/** Who is asking: a signed-in console user, the session their cookie belongs to, and what they act as. */
export interface Viewer {
  user: UserRecord
  session: SessionRecord
  actor: Actor
}

function signedOut(message: string, code: GatewayCode = 'signed_out'): GatewayError {
  return new GatewayError('authentication', message, { code })
}

/**
 * The console authenticates by session cookie only. A request that carries an API key is refused outright,
 * so a leaked key never opens the console, even alongside a cookie.
 */
export async function resolveViewer(services: Services, request: Request, now = Date.now()): Promise<Viewer> {
  if (request.headers.has('authorization') || request.headers.has('x-api-key')) {
    throw signedOut('API keys do not work on the console; sign in with a username and password.', 'api_key_not_accepted')
  }
  const token = readCookie(request, sessionCookieName)
  if (!token) throw signedOut('Sign in to use the console.')
  const session = await resumeSession(services.store.sessions, token, now)
  if (!session) throw signedOut('Your session has ended; sign in again.', 'session_expired')
  const user = await services.store.users.findById(session.userId)
  if (!user) throw signedOut('Your session has ended; sign in again.', 'session_expired')
  return { user, session, actor: userActor(user, clientAddress(request, services.server, services.config.trustedProxies)) }
}

/** Every state change must echo the session's CSRF token, which only the console's own pages can read. */
export function checkCsrf(viewer: Viewer, request: Request): void {
  const sent = request.headers.get('x-csrf-token') ?? ''
  const expected = viewer.session.csrfToken
  const matches = sent.length === expected.length && timingSafeEqual(Buffer.from(sent), Buffer.from(expected))
  if (!matches) throw new GatewayError('permission', 'Missing or wrong CSRF token; reload the page and try again.', { code: 'csrf_failed' })
}

/** A form post from another site would arrive with its own Origin; the console only accepts its own. */
export function checkSameOrigin(request: Request): void {
  const origin = request.headers.get('origin')
  if (origin === null) return
  const host = request.headers.get('x-forwarded-host') ?? request.headers.get('host') ?? new URL(request.url).host
  let originHost: string
  try {
    originHost = new URL(origin).host
  } catch {
    originHost = ''
  }
  if (originHost !== host)
    throw new GatewayError('permission', 'Cross-site requests are not accepted by the console.', { code: 'cross_site' })
}
