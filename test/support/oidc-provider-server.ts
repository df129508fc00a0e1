/**
 * A real OpenID Connect provider for the tests: the certified `oidc-provider` package, run in a process of its own
 * (`bun test/support/oidc-provider-server.ts '<settings JSON>'`) as an identity provider runs apart from the gateway.
 * It prints one line, `{"issuer":"http://127.0.0.1:PORT"}`, once it listens on its loopback port.
 *
 * Its development sign-in pages take any login name with any password; the person signed in is the login name, and
 * their claims are those the users file gives for it, read at each sign-in (a test edits it to change someone's
 * role at the provider). Claims beyond `sub` reach the gateway through the
 * userinfo endpoint, as with providers that keep ID tokens thin.
 */
import { readFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { exportJWK, generateKeyPair } from 'jose'
import Provider from 'oidc-provider'

interface Settings {
  clientId: string
  clientSecret: string
  redirectUris: string[]
  /** A JSON file of claims per login name (sub is the login name). */
  usersFile: string
}

const settings = JSON.parse(process.argv[2] ?? '{}') as Settings
const { privateKey } = await generateKeyPair('RS256', { extractable: true })
const signingKey = { ...(await exportJWK(privateKey)), kid: 'test-rs256', use: 'sig', alg: 'RS256' }

const server = createServer()
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
const issuer = `http://127.0.0.1:${(server.address() as { port: number }).port}`

const provider = new Provider(issuer, {
  clients: [
    {
      client_id: settings.clientId,
      client_secret: settings.clientSecret,
      redirect_uris: settings.redirectUris,
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_basic',
    },
  ],
  jwks: { keys: [signingKey] },
  cookies: { keys: ['test-cookie-key-not-secret'] },
  pkce: { required: () => true },
  claims: {
    openid: ['sub'],
    email: ['email', 'email_verified'],
    profile: ['preferred_username', 'name'],
    tollgate: ['tollgate_role', 'tollgate_account'],
  },
  async findAccount(_context: unknown, sub: string) {
    const users = JSON.parse(readFileSync(settings.usersFile, 'utf8')) as Record<string, Record<string, unknown>>
    return { accountId: sub, claims: async () => ({ sub, ...users[sub] }) }
  },
})
server.on('request', provider.callback())
process.stdout.write(`${JSON.stringify({ issuer })}\n`)
process.on('SIGTERM', () => server.close(() => process.exit(0)))
