import { createRemoteJWKSet, type JWTVerifyGetKey } from 'jose'
import type { OidcConfig } from '../../../config/types.ts'
import { fetchProviderJson, providerMisbehaved } from './failure.ts'

/** What Tollgate uses of the provider's `/.well-known/openid-configuration`. */
export interface ProviderMetadata {
  authorizationEndpoint: string
  tokenEndpoint: string
  userinfoEndpoint?: string
  /** How the token endpoint wants the client secret: HTTP Basic unless the provider only takes it in the body. */
  clientAuthentication: 'basic' | 'post'
  /** ID token algorithms both sides accept (never `none`, never HMAC). */
  algorithms: string[]
  /** RFC 9207: the provider adds `iss` to its redirect, and we require it. */
  returnsIssuer: boolean
  /** The provider's signing keys, cached; fetched again when a token names an unknown `kid`, at most every 30 s. */
  keys: JWTVerifyGetKey
}

/** Asymmetric algorithms only: an HMAC ID token would be signed with the client secret, which we do not use as a key. */
const supportedAlgorithms = ['RS256', 'ES256', 'PS256', 'RS384', 'ES384', 'PS384', 'RS512', 'ES512', 'PS512', 'EdDSA']
/** A good discovery document is kept this long; a failed fetch is not kept at all, so the next sign-in tries again. */
const metadataLifetimeMs = 3_600_000

function readUrl(document: Record<string, unknown>, field: string, required: boolean): string | undefined {
  const value = document[field]
  if (value === undefined && !required) return undefined
  if (typeof value !== 'string' || !/^https?:\/\//.test(value)) throw providerMisbehaved(`discovery: ${field} is missing or not a URL`)
  return value
}

function readWords(document: Record<string, unknown>, field: string): string[] | undefined {
  const value = document[field]
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : undefined
}

/** Reads and checks a discovery document: it must be the configured issuer's own (OpenID Connect Discovery §4.3). */
function readMetadata(config: OidcConfig, document: Record<string, unknown>): ProviderMetadata {
  if (document.issuer !== config.issuer) {
    throw providerMisbehaved(`discovery: the document's issuer is ${JSON.stringify(document.issuer)}, not the configured ${config.issuer}`)
  }
  const offered = readWords(document, 'id_token_signing_alg_values_supported') ?? ['RS256']
  const algorithms = supportedAlgorithms.filter((algorithm) => offered.includes(algorithm))
  if (algorithms.length === 0)
    throw providerMisbehaved(`discovery: no ID token algorithm Tollgate verifies (offered: ${offered.join(', ')})`)
  const methods = readWords(document, 'token_endpoint_auth_methods_supported') ?? ['client_secret_basic']
  return {
    authorizationEndpoint: readUrl(document, 'authorization_endpoint', true)!,
    tokenEndpoint: readUrl(document, 'token_endpoint', true)!,
    userinfoEndpoint: readUrl(document, 'userinfo_endpoint', false),
    clientAuthentication: !methods.includes('client_secret_basic') && methods.includes('client_secret_post') ? 'post' : 'basic',
    algorithms,
    returnsIssuer: document.authorization_response_iss_parameter_supported === true,
    keys: createRemoteJWKSet(new URL(readUrl(document, 'jwks_uri', true)!), {
      timeoutDuration: 10_000,
      cooldownDuration: 30_000,
      cacheMaxAge: 600_000,
    }),
  }
}

/** The provider's metadata, fetched on first use and kept an hour; one fetch at a time, however many sign-ins wait. */
export function createDiscovery(config: OidcConfig): () => Promise<ProviderMetadata> {
  let cached: { metadata: ProviderMetadata; fetchedAt: number } | undefined
  let pending: Promise<ProviderMetadata> | undefined
  const url = `${config.issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`
  return () => {
    if (cached && Date.now() - cached.fetchedAt < metadataLifetimeMs) return Promise.resolve(cached.metadata)
    pending ??= fetchProviderJson(url, { headers: { accept: 'application/json' } }, 'discovery')
      .then(({ status, body }) => {
        if (status !== 200) throw providerMisbehaved(`discovery: HTTP ${status} from ${url}`)
        const metadata = readMetadata(config, body)
        cached = { metadata, fetchedAt: Date.now() }
        return metadata
      })
      .finally(() => (pending = undefined))
    return pending
  }
}
