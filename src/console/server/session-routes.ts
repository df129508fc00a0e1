import { Elysia } from 'elysia'
import { GatewayError, invalidRequest } from '../../core/errors.ts'
import { failedSignInEntry, signInEntry } from '../../domain/audit/sign-ins.ts'
import type { UserRecord } from '../../domain/records.ts'
import { allows, grantableRoles, permissionsOf } from '../../domain/roles.ts'
import { endSession, startSession } from '../../domain/sessions.ts'
import { changePassword, verifyCredentials } from '../../domain/users.ts'
import { clientAddress } from '../../edge/client-address.ts'
import type { Services } from '../../edge/services.ts'
import { deferConsoleBody, readConsoleBody } from './body.ts'
import { readCookie, sessionCookie, sessionCookieName } from './cookies.ts'
import { jsonHeaders, securityHeaders } from './respond.ts'
import * as schema from './schemas.ts'
import { maxUsernameBytes, SignInLimiter } from './sign-in-limiter.ts'
import { signedIn } from './signed-in.ts'
import { checkSameOrigin } from './viewer.ts'

const tags = ['Session']

async function describeViewer(services: Services, user: UserRecord, csrfToken: string, expiresAt: number) {
  const account = user.accountId === null ? undefined : await services.store.accounts.findById(user.accountId)
  return {
    user: {
      id: user.id,
      name: user.name,
      role: user.role,
      account: account ? { id: account.id, name: account.name } : null,
      permissions: permissionsOf(user.role),
      grantable_roles: allows(user.role, 'users:write') ? grantableRoles(user.role) : [],
    },
    csrf_token: csrfToken,
    expires_at: new Date(expiresAt).toISOString(),
    models: services.config.models.map((model) => model.id),
  }
}

/** `auth.passwords: false`: only single sign-on opens the console, whatever password is sent. */
function requirePasswords(services: Services): void {
  if (!services.config.auth.passwords) {
    throw new GatewayError('permission', 'Password sign-in is turned off on this gateway; sign in with single sign-on.', {
      code: 'passwords_disabled',
    })
  }
}

/** One answer for every wrong name or password, so the form cannot be used to find out which usernames exist. */
const wrongCredentials = () => new GatewayError('authentication', 'Wrong username or password.', { code: 'wrong_credentials' })

/**
 * The login behind a name and password, under the sign-in throttle. A wrong one is recorded in the audit log
 * (`user.sign-in-failed`, with `reason`); one the throttle turns away before checking is not: nothing was tried.
 */
async function checkPassword(
  services: Services,
  limiter: SignInLimiter,
  request: Request,
  username: string,
  password: string,
  reason = 'wrong_credentials',
): Promise<UserRecord> {
  const address = clientAddress(request, services.server, services.config.trustedProxies)
  const wait = await limiter.retryAfter(username, address)
  if (wait > 0) {
    throw new GatewayError('rate_limit', `Too many failed sign-ins. Try again in ${Math.ceil(wait / 60)} minute(s).`, {
      code: 'sign_in_throttled',
      retryAfter: wait,
    })
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
    // Where the count is kept depends on whether the name exists (invented names cannot flush real ones); the answer does not.
    const named = await services.store.users.findByName(username)
    await limiter.recordFailure(username, address, named !== undefined)
    await services.store.audit.record(failedSignInEntry(named, 'password', reason, address, Date.now()))
    throw wrongCredentials()
  }
  await limiter.recordSuccess(username, address)
  return user
}

/**
 * Signing in is the one console route without a session: it checks only the origin, then reads the body (under the
 * console's cap and the body deadline, body.ts).
 */
function signInRoute(services: Services, limiter: SignInLimiter) {
  return new Elysia({ name: 'console-sign-in' })
    .onParse(deferConsoleBody)
    .onTransform(async (context) => {
      Object.assign(context.set.headers, securityHeaders, jsonHeaders)
      checkSameOrigin(context.request)
      await readConsoleBody(context, services.config.limits.bodyTimeoutMs)
    })
    .post(
      '/console/api/session',
      async ({ request, body, set }) => {
        requirePasswords(services)
        const username = body.username.trim()
        // Refused before it is counted: no login has such a name, and a count must not be kept for megabytes of one.
        if (Buffer.byteLength(username) > maxUsernameBytes)
          throw invalidRequest(`The username is too long: at most ${maxUsernameBytes} bytes.`, 'username')
        const user = await checkPassword(services, limiter, request, username, body.password)
        const now = Date.now()
        const signedIn = signInEntry(user, 'password', clientAddress(request, services.server, services.config.trustedProxies), now)
        const { token, session } = await startSession(services.store.sessions, user.id, now, signedIn)
        set.headers['set-cookie'] = sessionCookie(request, token)
        return describeViewer(services, user, session.csrfToken, session.expiresAt)
      },
      {
        ...schema.jsonBody(schema.signInBody),
        response: {
          200: schema.session,
          400: schema.consoleError,
          401: schema.consoleError,
          403: schema.consoleError,
          429: schema.consoleError,
        },
        detail: {
          tags,
          summary: 'Sign in',
          description:
            'Sets the session cookie (HttpOnly, SameSite=Strict, Path=/console). Repeated failures are refused with 429 and Retry-After; ' +
            'with auth.passwords: false every attempt is refused with 403 passwords_disabled.',
        },
      },
    )
}

/** The current password, checked under the sign-in throttle (a borrowed session must not become a guessing oracle). */
async function checkCurrentPassword(
  services: Services,
  limiter: SignInLimiter,
  request: Request,
  user: UserRecord,
  password: string,
): Promise<void> {
  try {
    await checkPassword(services, limiter, request, user.name, password, 'wrong_current_password')
  } catch (error) {
    // Not a 401: the session is fine, and the console signs out on any 401.
    if (error instanceof GatewayError && error.code === 'wrong_credentials')
      throw invalidRequest('The current password is wrong.', 'current_password')
    throw error
  }
}

export function sessionRoutes(services: Services, limiter = new SignInLimiter(services.signInFailures)) {
  const signedInRoutes = new Elysia({ name: 'console-session' })
    .use(signedIn(services))
    .get(
      '/console/api/session',
      ({ viewer }) => describeViewer(services, viewer.user, viewer.session.csrfToken, viewer.session.expiresAt),
      {
        permission: 'session',
        response: { 200: schema.session, ...schema.errorResponses },
        detail: { tags, summary: 'Who is signed in', description: 'Also hands out the CSRF token the page needs for changes.' },
      },
    )
    .post(
      '/console/api/session/password',
      async ({ viewer, actor, request, body, set }) => {
        requirePasswords(services)
        await checkCurrentPassword(services, limiter, request, viewer.user, body.current_password)
        if (body.new_password === body.current_password)
          throw invalidRequest('The new password is the current one; choose another.', 'new_password')
        if (body.new_password === '') throw invalidRequest(`Missing 'new_password': at least 12 characters.`, 'new_password')
        try {
          await changePassword(services.store, viewer.user.name, body.new_password, actor)
        } catch (error) {
          throw error instanceof Error && /password/.test(error.message)
            ? invalidRequest(`Invalid value for 'new_password': ${error.message}.`, 'new_password')
            : error
        }
        // Every session of this login has ended, this one too; this browser gets a fresh one so it stays signed in.
        const { token, session } = await startSession(services.store.sessions, viewer.user.id)
        set.headers['set-cookie'] = sessionCookie(request, token)
        return describeViewer(services, viewer.user, session.csrfToken, session.expiresAt)
      },
      {
        permission: 'session',
        ...schema.jsonBody(schema.ownPasswordBody),
        response: { 200: schema.session, ...schema.errorResponses, 429: schema.consoleError },
        detail: {
          tags,
          summary: 'Change your own password',
          description:
            'Needs the current password (wrong ones count towards the sign-in throttle). Signs this login out everywhere else; ' +
            'this browser gets a new session cookie and CSRF token, in the answer.',
        },
      },
    )
    .delete(
      '/console/api/session',
      async ({ request, set }) => {
        await endSession(services.store.sessions, readCookie(request, sessionCookieName)!)
        set.headers['set-cookie'] = sessionCookie(request, undefined)
        return { signed_out: true as const }
      },
      {
        permission: 'session',
        response: { 200: schema.signedOut, ...schema.errorResponses },
        detail: { tags, summary: 'Sign out', description: 'Ends the session for good and clears the cookie.' },
      },
    )
  return new Elysia({ name: 'console-sessions' }).use(signInRoute(services, limiter)).use(signedInRoutes)
}
