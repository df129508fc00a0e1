import { errors, jwtVerify, type JWTPayload } from 'jose'
import type { OidcConfig } from '../../../config/types.ts'
import type { ProviderMetadata } from './discovery.ts'
import { fetchProviderJson, providerMisbehaved, providerUnreachable, SignInFailure } from './failure.ts'

/** Clocks of the gateway and the provider may differ by this much (expiry, not-before, issued-at). */
const clockSkewS = 60

export interface TokenAnswer {
  idToken: string
  accessToken?: string
}

/** RFC 6749 §2.3.1: the id and secret are form-encoded before they are joined for HTTP Basic. */
function basicCredentials(config: OidcConfig): string {
  const encode = (value: string) => new URLSearchParams({ v: value }).toString().slice(2)
  return `Basic ${btoa(`${encode(config.clientId)}:${encode(config.clientSecret)}`)}`
}

/** Redeems the authorization code (with the PKCE verifier that only this server knew) at the token endpoint. */
export async function exchangeCode(
  config: OidcConfig,
  metadata: ProviderMetadata,
  code: string,
  codeVerifier: string,
  redirectUri: string,
): Promise<TokenAnswer> {
  const form = new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: redirectUri, code_verifier: codeVerifier })
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' }
  if (metadata.clientAuthentication === 'basic') headers.authorization = basicCredentials(config)
  else {
    form.set('client_id', config.clientId)
    form.set('client_secret', config.clientSecret)
  }
  const { status, body } = await fetchProviderJson(metadata.tokenEndpoint, { method: 'POST', headers, body: form }, 'token request')
  if (status !== 200) {
    const error = typeof body.error === 'string' ? body.error : `HTTP ${status}`
    // invalid_client is the operator's to fix; anything else (a spent or expired code) the person can retry.
    if (error === 'invalid_client' || error === 'unauthorized_client')
      throw providerMisbehaved(`token request: ${error} (check auth.oidc.client_id and client_secret)`)
    throw new SignInFailure(
      'code_refused',
      400,
      'The identity provider did not accept this sign-in (it may have taken too long). Start again.',
      `token request: ${error}`,
    )
  }
  if (typeof body.id_token !== 'string')
    throw providerMisbehaved('token request: the answer has no id_token (is "openid" among the scopes?)')
  return { idToken: body.id_token, accessToken: typeof body.access_token === 'string' ? body.access_token : undefined }
}

const refusedToken = (reason: string, detail: string) =>
  new SignInFailure(
    reason,
    403,
    "The identity provider's answer could not be trusted, so you were not signed in. Start again; if it goes on, tell an operator.",
    detail,
  )

/**
 * The ID token's claims once its signature (against the provider's published keys), issuer, audience, expiry and
 * nonce all check out; otherwise a refusal naming which check failed.
 */
export async function verifyIdToken(
  config: OidcConfig,
  metadata: ProviderMetadata,
  idToken: string,
  nonce: string,
): Promise<JWTPayload & { sub: string }> {
  let payload: JWTPayload
  try {
    ;({ payload } = await jwtVerify(idToken, metadata.keys, {
      issuer: config.issuer,
      audience: config.clientId,
      algorithms: metadata.algorithms,
      clockTolerance: clockSkewS,
      requiredClaims: ['sub', 'exp', 'iat'],
    }))
  } catch (error) {
    throw describeVerifyError(error)
  }
  // With several audiences, the one it was issued to must be us (OpenID Connect Core §3.1.3.7).
  const audiences = Array.isArray(payload.aud) ? payload.aud : [payload.aud]
  if ((audiences.length > 1 || payload.azp !== undefined) && payload.azp !== config.clientId) {
    throw refusedToken('id_token_audience', `azp is ${JSON.stringify(payload.azp)}, not this client`)
  }
  if (payload.nonce !== nonce) throw refusedToken('id_token_nonce', 'the nonce is not the one this sign-in sent')
  return payload as JWTPayload & { sub: string }
}

function describeVerifyError(error: unknown): SignInFailure {
  if (error instanceof SignInFailure) return error
  if (error instanceof errors.JWTExpired) return refusedToken('id_token_expired', error.message)
  if (error instanceof errors.JWTClaimValidationFailed) {
    const reasons: Record<string, string> = {
      aud: 'id_token_audience',
      iss: 'id_token_issuer',
      nbf: 'id_token_not_yet_valid',
      iat: 'id_token_issued_at',
    }
    return refusedToken(reasons[error.claim] ?? 'id_token_claims', error.message)
  }
  if (error instanceof errors.JWSSignatureVerificationFailed) return refusedToken('id_token_signature', error.message)
  if (error instanceof errors.JWKSNoMatchingKey) return refusedToken('id_token_unknown_key', error.message)
  if (error instanceof errors.JOSEAlgNotAllowed) return refusedToken('id_token_algorithm', error.message)
  if (error instanceof errors.JWKSTimeout) return providerUnreachable(`signing keys: ${error.message}`)
  if (error instanceof errors.JWKSInvalid || error instanceof errors.JWKInvalid) return providerMisbehaved(`signing keys: ${error.message}`)
  if (error instanceof errors.JOSEError) return refusedToken('id_token_malformed', error.message)
  // jose lets a failed key fetch through as fetch's own error.
  return providerUnreachable(`signing keys: ${(error as Error).message}`)
}

/**
 * The userinfo answer's claims, for the claims a provider keeps out of its ID tokens (oidc-provider and Okta's thin
 * tokens among them). Its `sub` must be the ID token's, or the answer is about someone else and is refused.
 */
export async function fetchUserinfo(metadata: ProviderMetadata, accessToken: string, subject: string): Promise<Record<string, unknown>> {
  if (!metadata.userinfoEndpoint) return {}
  const { status, body } = await fetchProviderJson(
    metadata.userinfoEndpoint,
    { headers: { authorization: `Bearer ${accessToken}`, accept: 'application/json' } },
    'userinfo',
  )
  if (status !== 200) throw providerMisbehaved(`userinfo: HTTP ${status}`)
  if (body.sub !== subject) throw refusedToken('userinfo_subject', 'the userinfo answer is about another subject')
  return body
}
