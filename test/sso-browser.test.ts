import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { parseConfig } from '../src/config/load.ts'
import type { Logger } from '../src/core/logger.ts'
import type { AccountRecord } from '../src/domain/records.ts'
import { createUser } from '../src/domain/users.ts'
import { launchChromium, saveScreenshot, watchConsole } from './support/browser.ts'
import { postSignIn } from './support/console.ts'
import { mockConfig, startTestGateway, type TestGateway } from './support/gateway.ts'
import { keepOnLoopback, startTestProvider, type TestProvider } from './support/oidc-provider.ts'

// Single sign-on end to end: Chromium, the gateway, and the certified oidc-provider in a process of its own.
const lines: Record<string, unknown>[] = []
const logger: Logger = {
  info: (fields, message) => lines.push({ ...fields, level: 'info', message }),
  warn: (fields, message) => lines.push({ ...fields, level: 'warn', message }),
  error: (fields, message) => lines.push({ ...fields, level: 'error', message }),
}
const clientSecret = `secret-${crypto.randomUUID()}`
let browser: Browser
let gateway: TestGateway
let provider: TestProvider
let acme: AccountRecord

const people = (carolRole: string | undefined) => ({
  boss: { email: 'Boss@Example.com', email_verified: true, preferred_username: 'boss', tollgate_role: ['viewer-of-nothing', 'admin'] },
  carol: { email: 'carol@example.com', email_verified: true, ...(carolRole && { tollgate_role: carolRole }), tollgate_account: 'acme' },
  ops: { email: 'ops@example.com', email_verified: true },
  nobody: { email: 'nobody@example.com', email_verified: true, tollgate_account: 'acme' },
  mallory: { email: 'mallory@evil.test', email_verified: true, tollgate_role: 'admin' },
})

/** The gateway's config with `auth` as given (a reload, as `tollgate reload` would apply it). */
function reloadWithAuth(auth: Record<string, unknown>): void {
  const { services } = gateway.gateway
  gateway.gateway.reload(
    parseConfig({ ...mockConfig, listen: { host: '127.0.0.1', port: 0 }, database: services.config.database, auth }, 'test'),
  )
}

const oidcSettings = (issuer: string) => ({
  issuer,
  client_id: 'tollgate-console',
  client_secret: clientSecret,
  name: 'Test IdP',
  scopes: ['openid', 'email', 'profile', 'tollgate'],
  allowed_domains: ['example.com'],
  role_claim: 'tollgate_role',
  account_claim: 'tollgate_account',
})

beforeAll(async () => {
  browser = await launchChromium()
  gateway = await startTestGateway({ logger })
  acme = await gateway.createAccount('acme', '10')
  provider = await startTestProvider({
    clientId: 'tollgate-console',
    clientSecret,
    redirectUris: [`${gateway.url}/console/oidc/callback`],
    users: people('account-admin'),
  })
  reloadWithAuth({ passwords: false, oidc: oidcSettings(provider.issuer) })
}, 60_000)

afterAll(async () => {
  await browser?.close()
  await provider?.stop()
  await gateway?.stop()
})

async function newPage(): Promise<{ context: BrowserContext; page: Page; problems: string[] }> {
  const context = await browser.newContext({ viewport: { width: 1100, height: 800 } })
  await keepOnLoopback(context)
  const page = await context.newPage()
  return { context, page, problems: watchConsole(page) }
}

/** From the console's sign-in page through the provider's pages (any password works there) and back. */
async function signOnThroughProvider(page: Page, login: string): Promise<void> {
  await page.goto(`${gateway.url}/console`)
  await page.getByRole('link', { name: 'Sign in with Test IdP' }).click()
  await page.locator('input[name=login]').fill(login)
  await page.locator('input[name=password]').fill('anything')
  await page.getByRole('button', { name: 'Sign-in' }).click()
  // The provider asks for consent the first time this person meets this client.
  const consent = page.getByRole('button', { name: 'Continue' })
  if (await consent.isVisible({ timeout: 5000 }).catch(() => false)) await consent.click()
}

const warnings = (reason: string) => lines.filter((line) => line.reason === reason)
const store = () => gateway.gateway.services.store

describe('single sign-on through a real OpenID provider', () => {
  test("passwords off: the sign-in page shows only the provider's button, and a password sign-in is refused", async () => {
    const { context, page, problems } = await newPage()
    await page.goto(`${gateway.url}/console`)
    await page.getByRole('heading', { name: 'Sign in' }).waitFor()
    expect(await page.getByRole('link', { name: 'Sign in with Test IdP' }).isVisible()).toBe(true)
    expect(await page.getByLabel('Password').count()).toBe(0)
    await saveScreenshot(page, 'sso-1-sign-in-page')
    await context.close()
    expect(problems).toEqual([])
    await createUser(store(), { name: 'local-admin', role: 'admin', password: 'a long enough password' })
    const refused = await postSignIn(gateway.url, 'local-admin', 'a long enough password')
    expect(refused.status).toBe(403)
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('passwords_disabled')
  })

  test('a first sign-in creates the login with the role and account the claims map to; the console opens', async () => {
    const { context, page, problems } = await newPage()
    await signOnThroughProvider(page, 'carol')
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor()
    await saveScreenshot(page, 'sso-2-carol-overview')
    const carol = await store().users.findByName('carol@example.com')
    expect(carol).toMatchObject({ role: 'account-admin', accountId: acme.id, passwordHash: '' })
    expect(await store().identities.listForUser(carol!.id)).toMatchObject([
      { issuer: provider.issuer, subject: 'carol', email: 'carol@example.com' },
    ])
    // The console's own session: its API answers this browser as carol of acme.
    const session = await page.evaluate(async () => (await fetch('/console/api/session')).json())
    expect(session.user).toMatchObject({ name: 'carol@example.com', role: 'account-admin', account: { id: acme.id, name: 'acme' } })
    await context.close()
    expect(problems).toEqual([])

    // Several roles in the claim: the strongest known one wins; the login name is the lower-cased email.
    const second = await newPage()
    await signOnThroughProvider(second.page, 'boss')
    await second.page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor()
    expect(await store().users.findByName('boss@example.com')).toMatchObject({ role: 'admin', accountId: null })
    await second.context.close()
    expect(lines.filter((line) => line.message === 'single sign-on' && line.how === 'created').map((line) => line.user)).toEqual([
      'carol@example.com',
      'boss@example.com',
    ])
  }, 60_000)

  test('later sign-ins follow the provider: a new role is applied, a removed one is refused and signs the person out', async () => {
    provider.setUsers(people('admin'))
    const { context, page } = await newPage()
    await signOnThroughProvider(page, 'carol')
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor()
    const carol = (await store().users.findByName('carol@example.com'))!
    expect(carol).toMatchObject({ role: 'admin', accountId: null })
    expect(lines.at(-1)).toMatchObject({ message: 'single sign-on', how: 'returning', changed: ['role', 'accountId'] })

    provider.setUsers(people(undefined))
    const again = await newPage()
    await signOnThroughProvider(again.page, 'carol')
    await again.page.getByRole('heading', { name: 'You are not signed in' }).waitFor()
    expect(await again.page.getByRole('alert').textContent()).toContain('gives you no role')
    // The session carol still had in the first browser has ended too.
    expect(await page.evaluate(async () => (await fetch('/console/api/session')).status)).toBe(401)
    expect(warnings('no_role')).toMatchObject([
      { message: 'single sign-on failed', status: 403, detail: 'subject carol (carol@example.com)' },
    ])
    await context.close()
    await again.context.close()
    provider.setUsers(people('account-admin'))
  }, 60_000)

  test('a person the claims map to nothing, or of a domain not allowed, gets a page saying so and no login', async () => {
    for (const [login, text, reason] of [
      ['nobody', 'gives you no role', 'no_role'],
      ['mallory', 'Accounts of evil.test may not sign in', 'email_domain_not_allowed'],
    ] as const) {
      const before = warnings(reason).length
      const { context, page, problems } = await newPage()
      await signOnThroughProvider(page, login)
      await page.getByRole('heading', { name: 'You are not signed in' }).waitFor()
      expect(await page.getByRole('alert').textContent()).toContain(text)
      await saveScreenshot(page, `sso-3-refused-${login}`)
      await page.getByRole('link', { name: 'Back to sign in' }).click()
      await page.getByRole('link', { name: 'Sign in with Test IdP' }).waitFor()
      await context.close()
      expect(problems.filter((problem) => !/status of 403/.test(problem))).toEqual([])
      expect(warnings(reason).length).toBe(before + 1)
    }
    expect(await store().users.findByName('mallory@evil.test')).toBeUndefined()
    expect(await store().users.findByName('nobody@example.com')).toBeUndefined()
  }, 60_000)

  test('the bootstrap admin made on the CLI without a password is linked at its first sign-on', async () => {
    // `tollgate user create ops@example.com --admin --sso`; the provider gives ops no role claim at all, so with
    // role_claim configured ops would be refused — unless the operator's choice stands, which it does without it.
    await createUser(store(), { name: 'ops@example.com', role: 'admin', singleSignOn: true })
    reloadWithAuth({ passwords: false, oidc: { ...oidcSettings(provider.issuer), role_claim: undefined, account_claim: undefined } })
    const { context, page } = await newPage()
    await signOnThroughProvider(page, 'ops')
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor()
    const ops = (await store().users.findByName('ops@example.com'))!
    expect(ops.role).toBe('admin')
    expect(await store().identities.listForUser(ops.id)).toMatchObject([{ subject: 'ops' }])
    expect(lines.at(-1)).toMatchObject({ message: 'single sign-on', how: 'linked', user: 'ops@example.com' })
    await context.close()
    reloadWithAuth({ passwords: false, oidc: oidcSettings(provider.issuer) })
  }, 60_000)

  test('the provider being down gives a clear page, not a 500, and one log line', async () => {
    const down = await startTestProvider({ clientId: 'x', clientSecret: 'y', redirectUris: ['http://127.0.0.1/cb'], users: {} })
    await down.stop()
    reloadWithAuth({ passwords: true, oidc: oidcSettings(down.issuer) })
    const { context, page } = await newPage()
    await page.goto(`${gateway.url}/console`)
    // Both ways are offered when passwords stay on.
    await page.getByLabel('Password').waitFor()
    const answer = page.waitForResponse((response) => response.url().includes('/console/oidc/start'))
    await page.getByRole('link', { name: 'Sign in with Test IdP' }).click()
    expect((await answer).status()).toBe(503)
    await page.getByRole('heading', { name: 'You are not signed in' }).waitFor()
    expect(await page.getByRole('alert').textContent()).toContain('could not be reached')
    await saveScreenshot(page, 'sso-4-provider-down')
    await context.close()
    expect(warnings('provider_unreachable')).toHaveLength(1)
    expect(lines.filter((line) => line.level === 'error')).toEqual([])
    reloadWithAuth({ passwords: false, oidc: oidcSettings(provider.issuer) })
  }, 60_000)

  test('no log line holds the client secret, a code or a token', () => {
    const logged = JSON.stringify(lines)
    expect(logged).not.toContain(clientSecret)
    expect(logged).not.toMatch(/eyJ[\w-]+\.[\w-]+\./) // a JWT
    expect(logged).not.toMatch(/code=|"code":/)
  })
})
