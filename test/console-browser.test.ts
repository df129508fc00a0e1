import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import OpenAI from 'openai'
import type { Browser, Page } from 'playwright-core'
import { formatUsd } from '../src/core/money.ts'
import type { AccountRecord } from '../src/domain/records.ts'
import { launchChromium, saveScreenshot, watchConsole } from './support/browser.ts'
import { addLogin } from './support/console.ts'
import { startTestGateway, type TestGateway } from './support/gateway.ts'

// The whole console in a real (headless) Chromium against a real gateway: what a person would do and see.
let browser: Browser
let gateway: TestGateway
let other: AccountRecord
let foreignKeyId: string
const passwords: Record<string, string> = {}

beforeAll(async () => {
  browser = await launchChromium()
  gateway = await startTestGateway({ balanceUsd: '25' })
  const { store } = gateway.gateway.services
  passwords.ops = await addLogin(store, 'ops', 'admin')
  passwords.alice = await addLogin(store, 'alice', 'account-admin', gateway.account.id)
  other = await gateway.createAccount('other-co', '10')
  foreignKeyId = (await gateway.createKey({ accountId: other.id, name: 'their-secret-key' })).record.id
}, 30_000)

afterAll(async () => {
  await browser?.close()
  await gateway?.stop()
})

async function signIn(page: Page, username: string, options: { keyboard?: boolean } = {}): Promise<void> {
  await page.goto(`${gateway.url}/`)
  expect(new URL(page.url()).pathname).toBe('/console')
  await page.getByRole('heading', { name: 'Sign in' }).waitFor()
  if (options.keyboard) {
    // Keyboard only: the username field has focus on arrival, Tab reaches the password, Enter submits.
    await page.keyboard.type(username)
    await page.keyboard.press('Tab')
    await page.keyboard.type(passwords[username]!)
    await page.keyboard.press('Enter')
  } else {
    await page.getByLabel('Username').fill(username)
    await page.getByLabel('Password').fill(passwords[username]!)
    await page.getByRole('button', { name: 'Sign in' }).click()
  }
  await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor()
}

/** Price of mock-1: $1 per million input tokens, $2 per million output = 1000 and 2000 nano-dollars a token. */
function expectedCost(usage: OpenAI.CompletionUsage): string {
  return formatUsd(usage.prompt_tokens * 1000 + usage.completion_tokens * 2000)
}

async function createKeyThroughForm(page: Page, name: string, admin: boolean): Promise<string> {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Keys' }).click()
  await page.getByRole('heading', { name: 'API keys' }).waitFor()
  await page.getByRole('link', { name: 'Create key' }).click()
  await page.getByRole('heading', { name: 'Create an API key' }).waitFor()
  if (admin) await page.getByLabel('Account').selectOption({ label: gateway.account.name })
  await page.getByLabel('Name').fill(name)
  // Narrow the key to one model: untick "all", then untick mock-fast.
  await page.getByLabel('All models, including ones added later').uncheck()
  await page.getByLabel('mock-fast').uncheck()
  await page.getByLabel('Requests per minute').fill('120')
  await page.getByLabel('Budget (USD)').fill('5.5')
  await saveScreenshot(page, `${name}-1-create-form`)
  await page.getByRole('button', { name: 'Create key' }).click()
  const secret = (await page.getByTestId('new-key-secret').textContent())!.trim()
  expect(secret).toMatch(/^tg-[0-9A-Za-z]{40}$/)
  await expect(page.getByRole('button', { name: 'Copy' }).isVisible()).resolves.toBe(true)
  await saveScreenshot(page, `${name}-2-secret-shown-once`)
  return secret
}

async function runScenario(username: 'ops' | 'alice'): Promise<void> {
  const admin = username === 'ops'
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } })
  const page = await context.newPage()
  const problems = watchConsole(page)
  if (admin) {
    // A wrong password first: the form says so without saying whether the name exists, and keeps the name.
    await page.goto(`${gateway.url}/console`)
    await page.getByLabel('Username').fill('ops')
    await page.getByLabel('Password').fill('not my password')
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.getByRole('alert').getByText('Wrong username or password.').waitFor()
    await saveScreenshot(page, 'sign-in-error')
  }
  await signIn(page, username, { keyboard: !admin })
  await saveScreenshot(page, `${username}-0-overview`)

  const secret = await createKeyThroughForm(page, `${username}-laptop`, admin)
  const client = new OpenAI({ baseURL: gateway.baseUrl, apiKey: secret, maxRetries: 0 })
  const completion = await client.chat.completions.create({
    model: 'mock-1',
    messages: [{ role: 'user', content: `hello from ${username}` }],
  })
  const cost = expectedCost(completion.usage!)
  // The key was narrowed to mock-1 in the form, so the other model is refused.
  expect(
    await client.chat.completions
      .create({ model: 'mock-fast', messages: [{ role: 'user', content: 'x' }] })
      .catch((error: unknown) => error),
  ).toBeInstanceOf(OpenAI.PermissionDeniedError)
  await gateway.gateway.services.ledger.flush()

  // The key's own page: limits as entered, and the request with its exact cost.
  await page.getByRole('link', { name: 'Done — view the key' }).click()
  await page.getByRole('heading', { name: `${username}-laptop`, level: 1 }).waitFor()
  await expect(page.getByText('$5.50').isVisible()).resolves.toBe(true)
  await page.getByTestId('request-log').waitFor()
  const costs = await page.getByTestId('request-cost').allTextContents()
  expect(costs).toContain(`$${cost}`)
  expect(await page.getByTestId('key-spent').textContent()).toBe(`$${cost}`)
  await page.getByRole('img', { name: /spend per day/ }).waitFor()
  await saveScreenshot(page, `${username}-3-key-detail`)

  // The usage page lists the same request, filtered by model.
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Usage' }).click()
  await page.getByLabel('Model', { exact: true }).selectOption('mock-1')
  await page.getByRole('button', { name: 'Apply filters' }).click()
  await page.getByTestId('request-log').waitFor()
  expect(await page.getByTestId('request-log').textContent()).toContain(`$${cost}`)
  await saveScreenshot(page, `${username}-4-usage`)
  // Filtered to client errors, the summary counts only those (the refused mock-fast request is one), not every request.
  await page.getByLabel('Model', { exact: true }).selectOption('')
  await page.getByLabel('Status', { exact: true }).selectOption('4xx')
  await page.getByRole('button', { name: 'Apply filters' }).click()
  await page.waitForURL(/status=4xx/)
  const { usage } = gateway.gateway.services.store
  const scope = { accountId: admin ? undefined : gateway.account.id }
  const clientErrors = (await usage.summarize({ ...scope, statusMin: 400, statusMax: 499 })).refused
  expect(clientErrors).toBeGreaterThan(0)
  expect((await usage.summarize(scope)).requests).toBeGreaterThan(clientErrors)
  const requestsStat = page.getByTestId('usage-summary').locator('.stat', { hasText: 'Refused' }).locator('dd')
  await page.waitForFunction(() => document.querySelector('[data-testid="usage-summary"]') !== null)
  for (let tries = 0; tries < 50 && (await requestsStat.textContent()) !== String(clientErrors); tries++) await Bun.sleep(100)
  expect(await requestsStat.textContent()).toBe(String(clientErrors))

  // Revoke with confirmation; the API refuses the key at once (well within the promised second).
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Keys' }).click()
  await page.getByRole('button', { name: `Revoke ${username}-laptop` }).click()
  await page.getByRole('dialog', { name: 'Revoke this key?' }).waitFor()
  await saveScreenshot(page, `${username}-5-revoke-confirm`)
  await page.getByRole('button', { name: 'Revoke key' }).click()
  await page
    .locator('tr', { hasText: `${username}-laptop` })
    .getByText('revoked')
    .waitFor()
  const refused = await client.chat.completions
    .create({ model: 'mock-1', messages: [{ role: 'user', content: 'again' }] })
    .catch((error: unknown) => error)
  expect(refused).toBeInstanceOf(OpenAI.AuthenticationError)
  await saveScreenshot(page, `${username}-6-keys-after-revoke`)

  // An account user never sees another account's keys; the admin sees every key.
  if (admin) expect(await page.getByTestId('keys-table').textContent()).toContain('their-secret-key')
  else expect(await page.getByTestId('keys-table').textContent()).not.toContain('their-secret-key')

  if (admin) {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Accounts' }).click()
    await page.getByRole('link', { name: 'other-co' }).click()
    await page.getByLabel('Amount (USD)').fill('0.000000001')
    await page.getByLabel('Note').fill('goodwill')
    await page.getByRole('button', { name: 'Add to balance' }).click()
    await page.getByTestId('balance-history').getByText('goodwill').waitFor()
    expect(await page.getByTestId('balance').textContent()).toBe('$10.000000001')
    expect(await page.getByTestId('balance-history').textContent()).toContain('by ops')
    await saveScreenshot(page, 'ops-7-account-detail')
    // A login for that account with a generated password, shown once.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Logins' }).click()
    await page.getByLabel('Username').fill('carol')
    await page.getByLabel('Role').selectOption('account-admin')
    await page.getByLabel('Account', { exact: true }).selectOption({ label: 'other-co' })
    await page.getByRole('button', { name: 'Create login' }).click()
    expect((await page.getByTestId('new-login-password').textContent())!).toMatch(/^[0-9A-Za-z]{24}$/)
    await page.getByRole('cell', { name: 'carol', exact: true }).waitFor()
    await saveScreenshot(page, 'ops-8-logins')
  } else {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Balance' }).click()
    await page.getByTestId('balance-history').waitFor()
    expect(await page.getByTestId('balance-history').textContent()).toContain('opening balance')
    await saveScreenshot(page, 'alice-7-balance')
    // A crafted URL to another account's key looks exactly like a missing one.
    await page.goto(`${gateway.url}/console/keys/${foreignKeyId}`)
    await page.getByRole('heading', { name: 'Key not found' }).waitFor()
    await saveScreenshot(page, 'alice-8-foreign-key-is-404')
  }

  await page.getByRole('button', { name: 'Sign out' }).click()
  await page.getByRole('heading', { name: 'Sign in' }).waitFor()
  expect(problems).toEqual([]) // no script errors, no CSP violations
  await context.close()
}

describe('the console in Chromium', () => {
  test('an admin signs in, creates a key, sees its request and spend, revokes it, credits an account', () => runScenario('ops'), 90_000)

  test('an account user does the same for their own account, by keyboard where it matters', () => runScenario('alice'), 90_000)

  test('on a phone-sized screen (in dark mode) the pages stay usable', async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, colorScheme: 'dark' })
    const page = await context.newPage()
    await signIn(page, 'alice')
    await saveScreenshot(page, 'narrow-overview')
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Keys' }).click()
    await page.getByTestId('keys-table').waitFor()
    await saveScreenshot(page, 'narrow-keys')
    // Nothing but the scrollable table region may be wider than the screen.
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)
    expect(overflow).toBeLessThanOrEqual(0)
    await context.close()
  }, 60_000)
})
