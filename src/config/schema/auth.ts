import { Type } from '@sinclair/typebox'
import { entry, readOnly, refuse, section, text } from './shapes.ts'

/**
 * The issuer must be https (http only on a loopback host, for a provider on the same machine): the ID token's trust
 * rests on fetching the provider's keys from the real provider.
 */
function checkIssuer(issuer: string): string {
  const url = URL.canParse(issuer) ? new URL(issuer) : undefined
  const loopback = url !== undefined && /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/.test(url.hostname)
  if (!url || !(url.protocol === 'https:' || (url.protocol === 'http:' && loopback)) || url.search || url.hash) {
    refuse("must be the provider's https:// issuer URL, e.g. https://sso.example.com/realms/acme")
  }
  return issuer
}

const words = (description: string, defaults: string[]) => Type.Array(text(), { default: defaults, description })

const oidcSchema = Type.Transform(
  entry(
    {
      issuer: Type.Transform(
        text({
          description:
            "The provider's issuer URL exactly as its discovery document states it (`/.well-known/openid-configuration` " +
            'is added); `https://` only, plain `http://` on a loopback host.',
        }),
      )
        .Decode(checkIssuer)
        .Encode(readOnly),
      client_id: text({ description: 'The confidential client registered at the provider.' }),
      client_secret: text({ description: 'Its secret, usually `"${OIDC_CLIENT_SECRET}"`.' }),
      name: text({ default: 'single sign-on', description: 'The sign-in button reads "Sign in with {name}".' }),
      scopes: words('Scopes asked for; `openid` is always among them, and an empty list asks for `email` and `profile` too.', [
        'openid',
        'email',
        'profile',
      ]),
      allowed_domains: words(
        'Email domains allowed to sign in (case and a leading `@` do not matter); empty: any. With a list, ' +
          'a person without an email claim is refused.',
        [],
      ),
      role_claim: Type.Optional(
        text({
          description:
            "The claim whose value, or any value of its list, names the person's Tollgate role (the strongest one " +
            'listed wins); a dotted name reaches nested claims (`realm_access.roles`). See "Single sign-on" for who gets which role.',
        }),
      ),
      account_claim: Type.Optional(
        text({
          description: 'The claim whose value names the account (by name or id) a login that belongs to an account is given.',
        }),
      ),
    },
    {
      description:
        'Single sign-on through an OpenID Connect provider; register ' +
        '`https://YOUR-GATEWAY/console/oidc/callback` as its redirect URI.',
    },
  ),
)
  .Decode((oidc) => {
    const scopes = oidc.scopes.map((scope) => scope.trim())
    return {
      issuer: oidc.issuer,
      clientId: oidc.client_id,
      clientSecret: oidc.client_secret,
      name: oidc.name,
      scopes: [...new Set(['openid', ...(scopes.length > 0 ? scopes : ['email', 'profile'])])],
      allowedDomains: oidc.allowed_domains.map((domain) => domain.trim().toLowerCase().replace(/^@/, '')),
      roleClaim: oidc.role_claim,
      accountClaim: oidc.account_claim,
    }
  })
  .Encode(readOnly)

/** How people sign in to the console; re-read on reload. */
export const authSchema = section(
  {
    passwords: Type.Boolean({
      default: true,
      description: '`false` refuses every password sign-in (403 `passwords_disabled`) and hides the form; needs `auth.oidc`.',
    }),
    oidc: Type.Optional(oidcSchema),
  },
  { description: 'How people sign in to the console: local passwords, single sign-on, or both (re-read on reload).' },
)
