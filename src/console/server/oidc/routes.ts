import { Elysia, t } from 'elysia'
import type { OidcConfig } from '../../../config/types.ts'
import { reportFailure } from '../../../core/report-failure.ts'
import { startSession } from '../../../domain/sessions.ts'
import { failedSignInEntry, signInEntry } from '../../../domain/audit/sign-ins.ts'
import { type ProvenIdentity, signOn, SignOnRefused } from '../../../domain/single-sign-on/sign-on.ts'
import { clientAddress } from '../../../edge/client-address.ts'
import type { Services } from '../../../edge/services.ts'
import { isSecureRequest, readCookie, sessionCookie } from '../cookies.ts'
import { jsonHeaders, securityHeaders } from '../respond.ts'
import { createDiscovery, type ProviderMetadata } from './discovery.ts'
import { SignInFailure } from './failure.ts'
import { beginSignIn, completeSignIn, flowLifetimeMs } from './flow.ts'
import { signInFailurePage } from './page.ts'

const startPath = '/console/oidc/start'
const callbackPath = '/console/oidc/callback'
const flowCookieName = 'tollgate_sign_in'

/**
 * The browser's half of a sign-in in progress: the state it was sent with. SameSite=Lax, unlike the session cookie,
 * because the browser comes back from the provider's site; Path keeps it to the two single sign-on routes.
 */
function flowCookie(request: Request, state: string | undefined): string {
  const secure = isSecureRequest(request) ? '; Secure' : ''
  return `${flowCookieName}=${state ?? ''}; Path=/console/oidc; HttpOnly; SameSite=Lax; Max-Age=${state ? flowLifetimeMs / 1000 : 0}${secure}`
}

/** The callback URL as the browser sees this gateway (through a TLS-terminating proxy too); the provider must list it. */
function callbackUrl(request: Request): string {
  const host = request.headers.get('x-forwarded-host') ?? request.headers.get('host') ?? new URL(request.url).host
  return `${isSecureRequest(request) ? 'https' : 'http'}://${host}${callbackPath}`
}

/** Discovery per configured provider; a reload that changes `auth.oidc` gets a fresh one. */
const discoveries = new WeakMap<OidcConfig, () => Promise<ProviderMetadata>>()
function discover(config: OidcConfig): Promise<ProviderMetadata> {
  let discovery = discoveries.get(config)
  if (!discovery) discoveries.set(config, (discovery = createDiscovery(config)))
  return discovery()
}

const notConfigured = () =>
  new SignInFailure('not_configured', 404, 'Single sign-on is not set up on this gateway; sign in with your username and password.')

/**
 * Every way a sign-on ends without a session becomes one page and one `single sign-on failed` line naming the reason; an unforeseen
 * error goes through the failure funnel (logged with its stack) and still gets a page, not a bare 500.
 */
function failurePage(services: Services, request: Request, error: unknown): Response {
  let response: Response
  if (error instanceof SignInFailure) {
    services.logger.warn({ reason: error.reason, status: error.status, detail: error.detail }, 'single sign-on failed')
    response = signInFailurePage(error.status, error.message)
  } else {
    reportFailure(services.logger, error, { route: `GET ${new URL(request.url).pathname}` })
    response = signInFailurePage(500, 'Something went wrong on the gateway while signing you in; it has been logged. Try again.')
  }
  response.headers.append('set-cookie', flowCookie(request, undefined))
  return response
}

async function start(services: Services, request: Request): Promise<Response> {
  const config = services.config.auth.oidc
  if (!config) throw notConfigured()
  const address = clientAddress(request, services.server, services.config.trustedProxies)
  const { location, state } = await beginSignIn(services.store.identities, config, await discover(config), callbackUrl(request), address)
  return new Response(null, {
    status: 302,
    headers: { ...securityHeaders, location, 'cache-control': 'no-store', 'set-cookie': flowCookie(request, state) },
  })
}

/**
 * Failures before a sign-in's state was found cost an anonymous caller nothing to repeat, so they are only logged; any
 * later one used up a sign-in started from this address (a bounded number) and is recorded in the audit log.
 */
const unrecordedFailures = new Set(['not_configured', 'state_missing', 'state_not_this_browser', 'state_unknown'])

async function recordFailure(services: Services, error: unknown, address: string, identity?: ProvenIdentity): Promise<void> {
  if (!(error instanceof SignInFailure) || unrecordedFailures.has(error.reason)) return
  const known = identity && (await services.store.identities.findIdentity(identity.issuer, identity.subject))
  const user = known ? await services.store.users.findById(known.userId) : undefined
  await services.store.audit.record(failedSignInEntry(user, 'single sign-on', error.reason, address, Date.now()))
}

async function callback(services: Services, request: Request, query: Record<string, string | undefined>): Promise<Response> {
  const config = services.config.auth.oidc
  if (!config) throw notConfigured()
  const address = clientAddress(request, services.server, services.config.trustedProxies)
  const claimNames = ['email', config.roleClaim, config.accountClaim].filter((name): name is string => name !== undefined)
  const identity = await completeSignIn(
    services.store.identities,
    config,
    await discover(config),
    { query, browserState: readCookie(request, flowCookieName) },
    claimNames,
  ).catch(async (error: unknown) => {
    await recordFailure(services, error, address)
    throw error
  })
  const now = Date.now()
  const signedOn = await signOn(services.store, config, identity, now, address).catch(async (error: unknown) => {
    // The operator needs to know who was turned away, not only why.
    const email = typeof identity.claims.email === 'string' ? ` (${identity.claims.email})` : ''
    const failure =
      error instanceof SignOnRefused ? new SignInFailure(error.reason, 403, error.message, `subject ${identity.subject}${email}`) : error
    await recordFailure(services, failure, address, identity)
    throw failure
  })
  services.logger.info(
    { user: signedOn.user.name, role: signedOn.user.role, how: signedOn.how, changed: signedOn.changed },
    'single sign-on',
  )
  const signedIn = signInEntry(signedOn.user, 'single sign-on', address, now, { how: signedOn.how })
  const { token } = await startSession(services.store.sessions, signedOn.user.id, now, signedIn)
  const headers = new Headers({ ...securityHeaders, location: '/console', 'cache-control': 'no-store' })
  headers.append('set-cookie', sessionCookie(request, token))
  headers.append('set-cookie', flowCookie(request, undefined))
  return new Response(null, { status: 303, headers })
}

const signInMethods = t.Object({
  passwords: t.Boolean({ description: 'Whether the username and password form is offered (auth.passwords)' }),
  single_sign_on: t.Union([
    t.Null(),
    t.Object({
      name: t.String({ description: 'The provider\'s name for the button: "Sign in with {name}"' }),
      url: t.String({ description: 'Where the button goes: it sends the browser on to the identity provider' }),
    }),
  ]),
})

/**
 * Single sign-on with an OpenID Connect provider (`auth.oidc`): the button's target sends the browser to the
 * provider (Authorization Code flow with PKCE, state and nonce), the callback turns a verified ID token into the
 * console's ordinary session. Also the one public console route that says how to sign in.
 */
export function oidcRoutes(services: Services) {
  const hidden = { detail: { hide: true } }
  return new Elysia({ name: 'console-oidc' })
    .get(
      '/console/api/sign-in-methods',
      ({ set }) => {
        Object.assign(set.headers, securityHeaders, jsonHeaders)
        const { passwords, oidc } = services.config.auth
        return { passwords, single_sign_on: oidc ? { name: oidc.name, url: startPath } : null }
      },
      {
        response: { 200: signInMethods },
        detail: {
          tags: ['Session'],
          summary: 'How to sign in',
          description: 'Needs no session: the sign-in page asks it which ways to offer.',
        },
      },
    )
    .get(startPath, ({ request }) => start(services, request).catch((error) => failurePage(services, request, error)), hidden)
    .get(
      callbackPath,
      ({ request }) =>
        callback(services, request, Object.fromEntries(new URL(request.url).searchParams)).catch((error) =>
          failurePage(services, request, error),
        ),
      hidden,
    )
}
