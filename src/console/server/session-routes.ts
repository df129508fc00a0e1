import { Elysia } from 'elysia'
import { GatewayError } from '../../core/errors.ts'
import type { UserRecord } from '../../domain/records.ts'
import { endSession, startSession } from '../../domain/sessions.ts'
import { verifyCredentials } from '../../domain/users.ts'
import { requireString } from '../../protocols/shared/validate.ts'
import { clientAddress } from '../../edge/client-address.ts'
import type { Services } from '../../edge/services.ts'
import { readCookie, sessionCookie, sessionCookieName } from './cookies.ts'
import { consoleErrorResponse, consoleJson } from './respond.ts'
import { consoleRoute, readJsonBody } from './route.ts'
import { SignInLimiter } from './sign-in-limiter.ts'
import { checkSameOrigin, type Viewer } from './viewer.ts'

async function describeViewer(services: Services, user: UserRecord, csrfToken: string, expiresAt: number) {
  const account = user.accountId === null ? undefined : await services.store.accounts.findById(user.accountId)
  return {
    user: { id: user.id, name: user.name, role: user.role, account: account ? { id: account.id, name: account.name } : null },
    csrf_token: csrfToken,
    expires_at: new Date(expiresAt).toISOString(),
    models: services.config.models.map((model) => model.id),
  }
}

/** One answer for every wrong name or password, so the form cannot be used to find out which usernames exist. */
const wrongCredentials = () => new GatewayError('authentication', 'Wrong username or password.', { code: 'wrong_credentials' })

async function signIn(services: Services, limiter: SignInLimiter, request: Request): Promise<Response> {
  try {
    checkSameOrigin(request)
    const body = await readJsonBody(request)
    const username = requireString(body.username, 'username').trim()
    const password = requireString(body.password, 'password')
    const address = clientAddress(request, services.server)
    const wait = limiter.retryAfter(username, address)
    if (wait > 0) {
      throw new GatewayError('rate_limit', `Too many failed sign-ins. Try again in ${Math.ceil(wait / 60)} minute(s).`, { code: 'sign_in_throttled', retryAfter: wait })
    }
    if (!limiter.begin(address)) {
      throw new GatewayError('rate_limit', 'Too many sign-ins at once; try again in a moment.', { code: 'sign_in_busy', retryAfter: 1 })
    }
    let user: UserRecord | undefined
    try {
      user = await verifyCredentials(services.store.users, username, password)
    } finally {
      limiter.end(address)
    }
    if (!user) {
      limiter.recordFailure(username, address)
      throw wrongCredentials()
    }
    limiter.recordSuccess(username)
    const { token, session } = await startSession(services.store.sessions, user.id)
    return consoleJson(await describeViewer(services, user, session.csrfToken, session.expiresAt), 200, { 'set-cookie': sessionCookie(request, token) })
  } catch (error) {
    return consoleErrorResponse(error, services.logger)
  }
}

export function sessionRoutes(services: Services, limiter = new SignInLimiter()) {
  return new Elysia({ name: 'console-session' })
    .post('/console/api/session', ({ request }) => signIn(services, limiter, request), { parse: 'none' })
    .get('/console/api/session', consoleRoute(services, async ({ viewer }: { viewer: Viewer }) =>
      describeViewer(services, viewer.user, viewer.session.csrfToken, viewer.session.expiresAt)))
    .delete('/console/api/session', consoleRoute(services, async ({ request }) => {
      await endSession(services.store.sessions, readCookie(request, sessionCookieName)!)
      return consoleJson({ signed_out: true }, 200, { 'set-cookie': sessionCookie(request, undefined) })
    }))
}
