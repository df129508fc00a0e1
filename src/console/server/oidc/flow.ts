import { timingSafeEqual } from 'node:crypto'
import type { OidcConfig } from '../../../config/types.ts'
import { randomBase62 } from '../../../core/ids.ts'
import type { IdentityRepository } from '../../../domain/single-sign-on/repository.ts'
import type { ProvenIdentity } from '../../../domain/single-sign-on/sign-on.ts'
import { readClaim } from '../../../domain/single-sign-on/claims.ts'
import type { ProviderMetadata } from './discovery.ts'
import { SignInFailure } from './failure.ts'
import { exchangeCode, fetchUserinfo, verifyIdToken } from './tokens.ts'

/** How long a person may spend at the provider between leaving and coming back. */
export const flowLifetimeMs = 10 * 60_000
/**
 * Sign-ins in progress at most, from one address and in all: each start writes a row and needs no account, so an
 * address that keeps starting is turned away long before it could crowd out everyone else.
 */
const maximumFlowsPerAddress = 20
const maximumFlows = 100_000

const sha256 = (text: string) => new Bun.CryptoHasher('sha256').update(text).digest()
const hashState = (state: string) => sha256(state).toString('hex')

/**
 * Sends a person to the provider: a fresh `state` (returned for the browser's cookie as well as sent), `nonce` and
 * PKCE verifier, kept server-side under the state's hash until the callback takes them.
 */
export async function beginSignIn(
  identities: IdentityRepository,
  config: OidcConfig,
  metadata: ProviderMetadata,
  redirectUri: string,
  address: string,
  now = Date.now(),
) {
  await identities.deleteExpiredFlows(now)
  if ((await identities.countFlows(now, address)) >= maximumFlowsPerAddress) {
    throw new SignInFailure(
      'too_many_sign_ins',
      429,
      'Too many sign-ins were started from your address. Finish one, or wait ten minutes.',
      `address ${address}`,
    )
  }
  if ((await identities.countFlows(now)) >= maximumFlows) {
    throw new SignInFailure('too_many_sign_ins', 503, 'Too many sign-ins are in progress right now. Try again in a few minutes.')
  }
  const state = randomBase62(43)
  const nonce = randomBase62(43)
  const codeVerifier = randomBase62(64)
  await identities.saveFlow({
    id: hashState(state),
    nonce,
    codeVerifier,
    redirectUri,
    address,
    createdAt: now,
    expiresAt: now + flowLifetimeMs,
  })
  const url = new URL(metadata.authorizationEndpoint)
  const parameters = {
    response_type: 'code',
    client_id: config.clientId,
    redirect_uri: redirectUri,
    scope: config.scopes.join(' '),
    state,
    nonce,
    code_challenge: sha256(codeVerifier).toString('base64url'),
    code_challenge_method: 'S256',
  }
  for (const [name, value] of Object.entries(parameters)) url.searchParams.set(name, value)
  return { location: url.toString(), state }
}

/** What the provider's redirect brought back, and the state this browser's cookie remembers. */
export interface Callback {
  query: Record<string, string | undefined>
  browserState: string | undefined
}

function sameText(left: string, right: string): boolean {
  return left.length === right.length && timingSafeEqual(Buffer.from(left), Buffer.from(right))
}

const startAgain = (reason: string, detail: string) =>
  new SignInFailure(reason, 400, 'This sign-in link has expired, was already used, or was started in another browser. Start again.', detail)

/**
 * Checks the redirect (state bound to this browser, used once; the provider's own error; RFC 9207's `iss`), redeems
 * the code and verifies the ID token. Returns who signed in, with the userinfo claims added when the ID token
 * lacks one the rules read.
 */
export async function completeSignIn(
  identities: IdentityRepository,
  config: OidcConfig,
  metadata: ProviderMetadata,
  callback: Callback,
  claimNames: string[],
  now = Date.now(),
): Promise<ProvenIdentity> {
  const { query, browserState } = callback
  if (!query.state)
    throw new SignInFailure(
      'state_missing',
      400,
      'This page is where the identity provider sends you back; open the console to sign in.',
      'no state',
    )
  if (!browserState || !sameText(browserState, query.state))
    throw startAgain('state_not_this_browser', "the state does not match this browser's cookie")
  // Taken before anything else: whatever happens next, this state never works again.
  const flow = await identities.takeFlow(hashState(query.state), now)
  if (!flow) throw startAgain('state_unknown', 'unknown, already used or expired state')
  if (query.error) {
    const refused = query.error === 'access_denied'
    throw new SignInFailure(
      refused ? 'provider_refused' : 'provider_error',
      refused ? 403 : 502,
      refused
        ? 'The identity provider did not sign you in.'
        : 'The identity provider could not sign you in. Try again; if it goes on, tell an operator.',
      `${query.error}${query.error_description ? `: ${query.error_description.slice(0, 200)}` : ''}`,
    )
  }
  if ((query.iss !== undefined || metadata.returnsIssuer) && query.iss !== config.issuer) {
    throw new SignInFailure(
      'issuer_mismatch',
      400,
      'This answer did not come from the configured identity provider. Start again.',
      `iss is ${JSON.stringify(query.iss)}`,
    )
  }
  if (!query.code)
    throw new SignInFailure('code_missing', 400, 'The identity provider sent you back without a sign-in code. Start again.', 'no code')
  const tokens = await exchangeCode(config, metadata, query.code, flow.codeVerifier, flow.redirectUri)
  const claims: Record<string, unknown> = { ...(await verifyIdToken(config, metadata, tokens.idToken, flow.nonce)) }
  if (tokens.accessToken && claimNames.some((name) => readClaim(claims, name).length === 0)) {
    const extra = await fetchUserinfo(metadata, tokens.accessToken, claims.sub as string)
    for (const [name, value] of Object.entries(extra)) if (!(name in claims)) claims[name] = value
  }
  return { issuer: config.issuer, subject: claims.sub as string, claims }
}
