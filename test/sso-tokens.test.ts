import { afterAll, beforeAll, describe, expect, setSystemTime, test } from 'bun:test'
import { exportJWK, generateKeyPair, type JWK, type JWTPayload, SignJWT } from 'jose'
import { parseConfig } from '../src/config/load.ts'
import type { Logger } from '../src/core/logger.ts'
import { auditRowsOf } from './support/audit.ts'
import { mockConfig, startTestGateway, type TestGateway } from './support/gateway.ts'

/**
 * The callback's checks, one crafted ID token at a time. The provider here is a loopback server written in the
 * test: discovery, a JWKS endpoint serving test keys, and a token endpoint that answers with whatever token the
 * case minted (after checking the client secret and the PKCE verifier, as a real provider does).
 */
const lines: Record<string, unknown>[] = []
const logger: Logger = {
  info: (fields, message) => lines.push({ ...fields, level: 'info', message }),
  warn: (fields, message) => lines.push({ ...fields, level: 'warn', message }),
  error: (fields, message) => lines.push({ ...fields, level: 'error', message }),
}
const clientId = 'tollgate-test'
const clientSecret = `secret-${crypto.randomUUID()}`
type Mint = (nonce: string) => Promise<string>

let gateway: TestGateway
let provider: ReturnType<typeof Bun.serve>
let issuer: string
const signers: Record<string, { privateKey: CryptoKey; jwk: JWK }> = {}
let published: JWK[] = []
let jwksFetches = 0
let tokenRequests = 0
let mint: Mint
let tokenAnswer: 'mint' | 'down' | 'invalid_grant' = 'mint'
/** code → the PKCE challenge and nonce of the authorization request it was issued for. */
const challenges = new Map<string, string>()

async function makeKey(kid: string, alg: 'RS256' | 'ES256') {
  const { privateKey, publicKey } = await generateKeyPair(alg)
  signers[kid] = { privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' } }
}

function sign(claims: JWTPayload, options: { kid?: string; alg?: 'RS256' | 'ES256' } = {}): Promise<string> {
  const kid = options.kid ?? 'rsa-1'
  const now = Math.floor(Date.now() / 1000)
  return new SignJWT({
    iss: issuer,
    aud: clientId,
    sub: 'dana',
    iat: now,
    exp: now + 300,
    email: 'dana@example.com',
    role: 'admin',
    ...claims,
  })
    .setProtectedHeader({ alg: options.alg ?? (signers[kid]!.jwk.alg as string), kid })
    .sign(signers[kid]!.privateKey)
}

function startProvider() {
  return Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(request) {
      const url = new URL(request.url)
      if (url.pathname === '/.well-known/openid-configuration') {
        return Response.json({
          issuer,
          authorization_endpoint: `${issuer}/authorize`,
          token_endpoint: `${issuer}/token`,
          jwks_uri: `${issuer}/jwks`,
          id_token_signing_alg_values_supported: ['RS256', 'ES256'],
          token_endpoint_auth_methods_supported: ['client_secret_basic'],
        })
      }
      if (url.pathname === '/jwks') {
        jwksFetches++
        return Response.json({ keys: published })
      }
      if (url.pathname === '/token' && request.method === 'POST') {
        tokenRequests++
        if (tokenAnswer === 'down') return new Response('upstream connect error', { status: 503 })
        const form = new URLSearchParams(await request.text())
        if (request.headers.get('authorization') !== `Basic ${btoa(`${clientId}:${clientSecret}`)}`)
          return Response.json({ error: 'invalid_client' }, { status: 401 })
        const verifier = form.get('code_verifier') ?? ''
        const challenge = new Bun.CryptoHasher('sha256').update(verifier).digest('base64url')
        if (tokenAnswer === 'invalid_grant' || challenges.get(form.get('code')!) !== challenge)
          return Response.json({ error: 'invalid_grant' }, { status: 400 })
        return Response.json({ id_token: await mint(nonceOf.get(form.get('code')!)!), access_token: 'opaque-access', token_type: 'Bearer' })
      }
      return new Response('not found', { status: 404 })
    },
  })
}
const nonceOf = new Map<string, string>()

beforeAll(async () => {
  await makeKey('rsa-1', 'RS256')
  await makeKey('ec-1', 'ES256')
  await makeKey('stranger', 'RS256')
  await makeKey('rsa-2', 'RS256')
  published = [signers['rsa-1']!.jwk, signers['ec-1']!.jwk]
  provider = startProvider()
  issuer = `http://127.0.0.1:${provider.port}`
  gateway = await startTestGateway({ logger })
  const auth = { oidc: { issuer, client_id: clientId, client_secret: clientSecret, role_claim: 'role' } }
  gateway.gateway.reload(
    parseConfig(
      { ...mockConfig, listen: { host: '127.0.0.1', port: 0 }, database: gateway.gateway.services.config.database, auth },
      'test',
    ),
  )
})

afterAll(async () => {
  setSystemTime()
  await gateway?.stop()
  provider?.stop(true)
})

interface Flow {
  state: string
  cookie: string
  code: string
}

/** What a browser does on pressing the button: the gateway's redirect to the provider, and its flow cookie. */
async function beginFlow(): Promise<Flow> {
  const response = await fetch(`${gateway.url}/console/oidc/start`, { redirect: 'manual' })
  expect(response.status).toBe(302)
  const location = new URL(response.headers.get('location')!)
  expect(`${location.origin}${location.pathname}`).toBe(`${issuer}/authorize`)
  const query = Object.fromEntries(location.searchParams)
  expect(query).toMatchObject({
    response_type: 'code',
    client_id: clientId,
    code_challenge_method: 'S256',
    redirect_uri: `${gateway.url}/console/oidc/callback`,
  })
  expect(query.scope!.split(' ')).toEqual(['openid', 'email', 'profile'])
  const cookie = response.headers.get('set-cookie')!
  expect(cookie).toMatch(/^tollgate_sign_in=\w+; Path=\/console\/oidc; HttpOnly; SameSite=Lax; Max-Age=600$/)
  // The provider's side: it issues a code for this authorization request.
  const code = `code-${crypto.randomUUID()}`
  challenges.set(code, query.code_challenge!)
  nonceOf.set(code, query.nonce!)
  return { state: query.state!, cookie: cookie.split(';')[0]!, code }
}

/** The provider sends the browser back; `mintToken` makes the ID token its token endpoint then answers with. */
async function finishFlow(flow: Flow, mintToken: Mint, extra: Record<string, string> = {}, cookie = flow.cookie): Promise<Response> {
  mint = mintToken
  const query = new URLSearchParams({ code: flow.code, state: flow.state, ...extra })
  return fetch(`${gateway.url}/console/oidc/callback?${query}`, { redirect: 'manual', headers: cookie ? { cookie } : {} })
}

const failures = () => lines.filter((line) => line.message === 'single sign-on failed')

/** Refused with this status and page, logged exactly once with this reason, and no session handed out. */
async function expectRefused(response: Response, status: number, reason: string, text: string, before: number): Promise<void> {
  expect(response.status).toBe(status)
  expect(response.headers.get('content-type')).toContain('text/html')
  expect(await response.text()).toContain(text)
  expect(response.headers.getSetCookie().some((cookie) => cookie.startsWith('tollgate_session='))).toBe(false)
  expect(
    failures()
      .slice(before)
      .map((line) => line.reason),
  ).toEqual([reason])
}

const untrusted = 'could not be trusted'

describe('the callback checks the ID token', () => {
  test('a good RS256 or ES256 token signs in: 303 to the console with a session cookie', async () => {
    for (const kid of ['rsa-1', 'ec-1']) {
      const response = await finishFlow(await beginFlow(), (nonce) => sign({ nonce }, { kid }))
      expect(response.status).toBe(303)
      expect(response.headers.get('location')).toBe('/console')
      const session = response.headers.getSetCookie().find((cookie) => cookie.startsWith('tollgate_session='))!
      expect(session).toContain('SameSite=Strict')
      const who = await fetch(`${gateway.url}/console/api/session`, { headers: { cookie: session.split(';')[0]! } })
      expect(((await who.json()) as { user: { name: string; role: string } }).user).toMatchObject({
        name: 'dana@example.com',
        role: 'admin',
      })
    }
  })

  test('a tampered token (claims changed after signing) is refused', async () => {
    const before = failures().length
    const response = await finishFlow(await beginFlow(), async (nonce) => {
      const [header, payload, signature] = (await sign({ nonce, role: 'account-admin' })).split('.')
      const claims = { ...JSON.parse(Buffer.from(payload!, 'base64url').toString()), role: 'admin', sub: 'someone-else' }
      return `${header}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${signature}`
    })
    await expectRefused(response, 403, 'id_token_signature', untrusted, before)
  })

  test('a token for another client (wrong audience, or several audiences without us as azp) is refused', async () => {
    let before = failures().length
    await expectRefused(
      await finishFlow(await beginFlow(), (nonce) => sign({ nonce, aud: 'some-other-app' })),
      403,
      'id_token_audience',
      untrusted,
      before,
    )
    before = failures().length
    await expectRefused(
      await finishFlow(await beginFlow(), (nonce) => sign({ nonce, aud: [clientId, 'other'], azp: 'other' })),
      403,
      'id_token_audience',
      untrusted,
      before,
    )
  })

  test('an expired token is refused; one expired within the 60 s of allowed clock skew is not', async () => {
    const before = failures().length
    const now = Math.floor(Date.now() / 1000)
    await expectRefused(
      await finishFlow(await beginFlow(), (nonce) => sign({ nonce, iat: now - 900, exp: now - 300 })),
      403,
      'id_token_expired',
      untrusted,
      before,
    )
    expect((await finishFlow(await beginFlow(), (nonce) => sign({ nonce, iat: now - 330, exp: now - 30 }))).status).toBe(303)
  })

  test('a token with another nonce, another issuer, an unaccepted algorithm or from an unknown key is refused', async () => {
    const cases: [Mint, string][] = [
      [() => sign({ nonce: 'not-the-one-sent' }), 'id_token_nonce'],
      [(nonce) => sign({ nonce, iss: 'https://impostor.example.com' }), 'id_token_issuer'],
      [
        async (nonce) =>
          `${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from(JSON.stringify({ iss: issuer, aud: clientId, sub: 'dana', nonce })).toString('base64url')}.`,
        'id_token_algorithm',
      ],
      [(nonce) => sign({ nonce }, { kid: 'stranger' }), 'id_token_unknown_key'],
    ]
    for (const [mintToken, reason] of cases) {
      const before = failures().length
      await expectRefused(await finishFlow(await beginFlow(), mintToken), 403, reason, untrusted, before)
    }
  })

  test("the provider's keys are cached; an unknown kid refetches them, at most once per 30 s", async () => {
    const start = Date.now()
    const at = (seconds: number) => setSystemTime(new Date(start + seconds * 1000))
    try {
      at(31) // past the cool-down of any fetch the cases before made
      const fetched = jwksFetches
      for (let round = 0; round < 3; round++) {
        const before = failures().length
        await expectRefused(
          await finishFlow(await beginFlow(), (nonce) => sign({ nonce }, { kid: 'rsa-2' })),
          403,
          'id_token_unknown_key',
          untrusted,
          before,
        )
      }
      expect(jwksFetches - fetched).toBe(1)
      // The provider rotates to a new key; once the cool-down has passed, a token signed with it is accepted.
      published = [...published, signers['rsa-2']!.jwk]
      at(62)
      expect((await finishFlow(await beginFlow(), (nonce) => sign({ nonce }, { kid: 'rsa-2' }))).status).toBe(303)
      expect((await finishFlow(await beginFlow(), (nonce) => sign({ nonce }, { kid: 'rsa-1' }))).status).toBe(303)
      expect(jwksFetches - fetched).toBe(2)
    } finally {
      setSystemTime()
    }
  })
})

describe('the audit log records single sign-on', () => {
  const rowsOf = (action: () => Promise<unknown>) => auditRowsOf(gateway.gateway.services.store, action)
  const signOn = (status: number, mintToken: Mint) =>
    rowsOf(async () => expect((await finishFlow(await beginFlow(), mintToken)).status).toBe(status))
  const anonymous = { kind: 'anonymous', id: null, label: 'anonymous', address: '127.0.0.1' }

  test('a first sign-on makes the login (by the person), a later one that changes it is user.edit; each sign-in is a row', async () => {
    const first = await signOn(303, (nonce) => sign({ nonce, sub: 'erin', email: 'erin@example.com' }))
    const id = String((await gateway.gateway.services.store.users.findByName('erin@example.com'))!.id)
    const as = (label: string) => ({ kind: 'user', id, label, address: '127.0.0.1' })
    expect(first).toEqual([
      expect.objectContaining({
        action: 'user.create',
        objectType: 'user',
        objectId: id,
        accountId: null,
        actor: as('erin@example.com'),
        before: null,
        after: { name: 'erin@example.com', role: 'admin', account_id: null, password: 'none', via: 'single sign-on' },
      }),
      expect.objectContaining({
        action: 'user.sign-in',
        objectId: id,
        actor: as('erin@example.com'),
        after: { method: 'single sign-on', how: 'created' },
      }),
    ])
    expect(await signOn(303, (nonce) => sign({ nonce, sub: 'erin', email: 'erin.b@example.com' }))).toEqual([
      expect.objectContaining({
        action: 'user.edit',
        objectId: id,
        actor: as('erin.b@example.com'),
        before: { name: 'erin@example.com' },
        after: { name: 'erin.b@example.com', via: 'single sign-on' },
      }),
      expect.objectContaining({ action: 'user.sign-in', after: { method: 'single sign-on', how: 'returning' } }),
    ])
    // The claims now make her an account admin, and there is no account for her: refused, and the row is about her.
    expect(await signOn(403, (nonce) => sign({ nonce, sub: 'erin', email: 'erin.b@example.com', role: 'account-admin' }))).toEqual([
      expect.objectContaining({
        action: 'user.sign-in-failed',
        objectId: id,
        actor: anonymous,
        after: { method: 'single sign-on', reason: 'no_account' },
      }),
    ])
  })

  test('a token that cannot be trusted proves nobody: one user.sign-in-failed row with its reason and no login', async () => {
    for (const [mintToken, reason] of [
      [() => sign({ nonce: 'not-the-one-sent', sub: 'erin' }), 'id_token_nonce'],
      [(nonce: string) => sign({ nonce, aud: 'other' }), 'id_token_audience'],
    ] as const) {
      expect(await signOn(403, mintToken)).toEqual([
        expect.objectContaining({
          action: 'user.sign-in-failed',
          objectId: null,
          actor: anonymous,
          after: { method: 'single sign-on', reason },
        }),
      ])
    }
  })
})

describe('the callback checks the redirect', () => {
  test('a replayed state is refused, without a second token request', async () => {
    const flow = await beginFlow()
    expect((await finishFlow(flow, (nonce) => sign({ nonce }))).status).toBe(303)
    const requests = tokenRequests
    const before = failures().length
    // Logged, not in the audit log: it used up no sign-in this gateway started.
    expect(
      await auditRowsOf(gateway.gateway.services.store, async () => {
        await expectRefused(await finishFlow(flow, (nonce) => sign({ nonce })), 400, 'state_unknown', 'Start again', before)
      }),
    ).toEqual([])
    expect(tokenRequests).toBe(requests)
  })

  test('a callback link opened in another browser is refused, and the real browser can still finish', async () => {
    const flow = await beginFlow()
    const before = failures().length
    await expectRefused(await finishFlow(flow, (nonce) => sign({ nonce }), {}, ''), 400, 'state_not_this_browser', 'Start again', before)
    expect((await finishFlow(flow, (nonce) => sign({ nonce }))).status).toBe(303)
  })

  test("the provider's own refusal, another iss, a refused code and the provider down each get their page", async () => {
    const cases: [Record<string, string>, typeof tokenAnswer, number, string, string][] = [
      [{ error: 'access_denied', error_description: 'The user said no' }, 'mint', 403, 'provider_refused', 'did not sign you in'],
      [{ iss: 'https://impostor.example.com' }, 'mint', 400, 'issuer_mismatch', 'did not come from the configured identity provider'],
      [{}, 'invalid_grant', 400, 'code_refused', 'Start again'],
      [{}, 'down', 503, 'provider_unreachable', 'could not be reached'],
    ]
    for (const [extra, answer, status, reason, text] of cases) {
      tokenAnswer = answer
      const before = failures().length
      await expectRefused(await finishFlow(await beginFlow(), (nonce) => sign({ nonce }), extra), status, reason, text, before)
    }
    tokenAnswer = 'mint'
    // And the provider gone altogether between the redirect and the code exchange.
    const flow = await beginFlow()
    provider.stop(true)
    const before = failures().length
    await expectRefused(await finishFlow(flow, (nonce) => sign({ nonce })), 503, 'provider_unreachable', 'could not be reached', before)
  })

  test('nothing logged holds the client secret, a code or a token; nothing was an unexpected error', () => {
    const logged = JSON.stringify(lines)
    expect(logged).not.toContain(clientSecret)
    expect(logged).not.toContain('code-')
    expect(logged).not.toContain('opaque-access')
    expect(logged).not.toMatch(/eyJ[\w-]+\.[\w-]*\./)
    expect(lines.filter((line) => line.level === 'error')).toEqual([])
  })
})

test('one address may only have 20 sign-ins in progress: the next start is a page, not a row', async () => {
  const pending = await gateway.gateway.services.store.identities.countFlows(Date.now(), '127.0.0.1')
  const statuses: number[] = []
  for (let start = pending; start < 21; start++)
    statuses.push((await fetch(`${gateway.url}/console/oidc/start`, { redirect: 'manual' })).status)
  expect(statuses).toEqual([...Array(20 - pending).fill(302), 429])
  const before = failures().length
  await expectRefused(
    await fetch(`${gateway.url}/console/oidc/start`, { redirect: 'manual' }),
    429,
    'too_many_sign_ins',
    'Too many sign-ins were started from your address',
    before,
  )
  expect(await gateway.gateway.services.store.identities.countFlows(Date.now(), '127.0.0.1')).toBe(20)
})
