import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import Anthropic from '@anthropic-ai/sdk'
import OpenAI from 'openai'
import type { Browser, Page } from 'playwright-core'
import { launchChromium, saveScreenshot, watchConsole } from './support/browser.ts'
import { pollUntil, startBatchSetup, type BatchSetup } from './support/batches.ts'
import { addLogin, postSignIn } from './support/console.ts'

// Models, Tasks, editing and rotating a key, the CSV download and the login tools, in a real (headless) Chromium.
let browser: Browser
let setup: BatchSetup
const passwords: Record<string, string> = {}

beforeAll(async () => {
  browser = await launchChromium()
  setup = await startBatchSetup({ balanceUsd: '25' })
  const { store } = setup.gateway.gateway.services
  passwords.ops = await addLogin(store, 'ops', 'admin')
  passwords.alice = await addLogin(store, 'alice', 'account-admin', setup.gateway.account.id)
}, 30_000)

afterAll(async () => {
  await browser?.close()
  await setup?.stop()
})

async function signIn(page: Page, username: string): Promise<void> {
  await page.goto(`${setup.gateway.url}/console`)
  await page.getByLabel('Username').fill(username)
  await page.getByLabel('Password').fill(passwords[username]!)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor()
}

const nav = (page: Page, name: string) => page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name }).click()

describe('console management pages in Chromium', () => {
  test('an account user: models with exact prices, a batch and its results, editing and rotating a key, the request log as CSV, a new password', async () => {
    const { gateway } = setup
    const anthropic = new Anthropic({ baseURL: gateway.url, apiKey: gateway.key, maxRetries: 0 })
    const batch = await anthropic.messages.batches.create({
      requests: [
        { custom_id: 'first', params: { model: 'claude-up', max_tokens: 32, messages: [{ role: 'user', content: 'hi' }] } },
        { custom_id: 'second', params: { model: 'claude-up', max_tokens: 32, messages: [{ role: 'user', content: 'there' }] } },
      ],
    })
    await pollUntil(
      () => anthropic.messages.batches.retrieve(batch.id),
      (value) => value.processing_status === 'ended',
    )
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true })
    const page = await context.newPage()
    const problems = watchConsole(page)
    await signIn(page, 'alice')

    await nav(page, 'Models')
    await page.getByTestId('models-table').waitFor()
    const models = await page.getByTestId('models-table').textContent()
    expect(models).toContain('gemini-up')
    expect(models).toContain('$0.625') // gemini-up's batch input price, exact
    expect(await page.getByRole('heading', { name: 'Route health' }).count()).toBe(0)
    await saveScreenshot(page, 'manage-1-models')
    // Money lines up on the decimal point ($1.00 over $0.625) and never wraps.
    const cells = await page.getByTestId('batch-input').evaluateAll((all) =>
      all
        .filter((cell) => cell.querySelector('.money-fraction'))
        .map((cell) => {
          const money = cell.querySelector('.money')!
          return {
            point: Math.round(money.querySelector('.money-fraction')!.getBoundingClientRect().left),
            oneLine: money.getClientRects().length === 1,
            text: money.textContent,
          }
        }),
    )
    expect(cells.map((cell) => cell.text)).toEqual(['$1.00', '$1.50', '$0.625'])
    expect(new Set(cells.map((cell) => cell.point)).size).toBe(1)
    expect(cells.every((cell) => cell.oneLine)).toBe(true)

    await nav(page, 'Tasks')
    await page.getByTestId('tasks-table').waitFor()
    expect(await page.getByTestId('tasks-table').textContent()).toContain('2 / 2')
    await page.getByRole('link', { name: batch.id }).click()
    await page.getByTestId('task-items').waitFor()
    expect(await page.getByTestId('task-items').textContent()).toContain('second')
    expect(await page.getByTestId('task-spent').textContent()).toBe('$0.000138') // 2 × (11 × 1.5 + 7 × 7.5) per 1M
    await saveScreenshot(page, 'manage-2-task-detail')
    const [results] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Download results (JSONL)' }).click(),
    ])
    const lines = readFileSync((await results.path())!, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
    expect(lines.map((line) => [line.custom_id, line.result.type])).toEqual([
      ['first', 'succeeded'],
      ['second', 'succeeded'],
    ])

    // Edit a key's limits: the API applies them to the very next request.
    const { secret, record } = await gateway.createKey({ name: 'laptop' })
    await page.goto(`${gateway.url}/console/keys/${record.id}`)
    await page.getByRole('button', { name: 'Edit limits' }).click()
    const form = page.getByRole('form', { name: 'Edit key' })
    await form.getByLabel('Requests per minute').fill('1')
    await form.getByLabel('Budget (USD)').fill('2.5')
    await saveScreenshot(page, 'manage-3-key-edit')
    await form.getByRole('button', { name: 'Save changes' }).click()
    await page.getByTestId('key-rpm').getByText('1', { exact: true }).waitFor()
    expect(await page.getByTestId('key-budget').textContent()).toBe('$2.50')
    const client = new OpenAI({ baseURL: gateway.baseUrl, apiKey: secret, maxRetries: 0 })
    await client.chat.completions.create({ model: 'mock-1', messages: [{ role: 'user', content: 'one' }] })
    expect(
      await client.chat.completions
        .create({ model: 'mock-1', messages: [{ role: 'user', content: 'two' }] })
        .catch((error: unknown) => error),
    ).toBeInstanceOf(OpenAI.RateLimitError)
    await saveScreenshot(page, 'manage-4-key-edited')

    // Rotate: the new secret is shown once and works; the old one is refused.
    await page.getByRole('button', { name: 'Rotate secret' }).click()
    await page.getByRole('dialog', { name: "Rotate this key's secret?" }).getByRole('button', { name: 'Rotate secret' }).click()
    const rotated = (await page.getByTestId('rotated-key-secret').textContent())!.trim()
    expect(rotated).toMatch(/^tg-[0-9A-Za-z]{40}$/)
    expect(
      await client.chat.completions
        .create({ model: 'mock-1', messages: [{ role: 'user', content: 'old' }] })
        .catch((error: unknown) => error),
    ).toBeInstanceOf(OpenAI.AuthenticationError)
    await saveScreenshot(page, 'manage-5-key-rotated')

    // The request log as CSV, with the filters on screen; money as exact decimals.
    await gateway.gateway.services.ledger.drain()
    await nav(page, 'Usage')
    await page.getByLabel('Model', { exact: true }).selectOption('mock-1')
    await page.getByRole('button', { name: 'Apply filters' }).click()
    // The filtered log replaces the unfiltered one after a reload: wait for the URL, then for its rows.
    await page.waitForURL(/model=mock-1/)
    await page.getByTestId('request-cost').first().waitFor()
    const [csv] = await Promise.all([page.waitForEvent('download'), page.getByTestId('download-csv').click()])
    expect(csv.suggestedFilename()).toMatch(/^tollgate-requests-\d{4}-\d\d-\d\d\.csv$/)
    const [header, ...rows] = readFileSync((await csv.path())!, 'utf8')
      .trim()
      .split('\r\n')
    const costColumn = header!.split(',').indexOf('cost_usd')
    const csvCosts = rows.map((row) => `$${row.split(',')[costColumn]}`)
    // The screen settles on the filtered log: its costs are the CSV's (a wrong screen times out here).
    await page.waitForFunction(
      (expected) =>
        JSON.stringify([...document.querySelectorAll('[data-testid="request-cost"]')].map((cell) => cell.textContent)) === expected,
      JSON.stringify(csvCosts),
      { timeout: 5000 },
    )
    expect(await page.getByTestId('request-cost').allTextContents()).toEqual(csvCosts)
    expect(csvCosts.length).toBeGreaterThan(0)
    expect(rows.every((row) => row.includes(',mock-1,'))).toBe(true)
    await saveScreenshot(page, 'manage-6-usage-csv')
    // A new password; the old one no longer signs in.
    await page.getByRole('link', { name: /^alice/ }).click()
    await page.getByLabel('Current password').fill(passwords.alice!)
    await page.getByLabel('New password', { exact: true }).fill('alice-new-password-1')
    await page.getByLabel('New password again').fill('alice-new-password-1')
    await page.getByRole('button', { name: 'Change password' }).click()
    await page.getByRole('status').getByText('Password changed.').waitFor()
    await saveScreenshot(page, 'manage-7-password')
    expect((await postSignIn(gateway.url, 'alice', passwords.alice!)).status).toBe(401)
    passwords.alice = 'alice-new-password-1'
    // Still signed in here: a change after the password change works with the new CSRF token.
    await nav(page, 'Keys')
    await page.getByTestId('keys-table').waitFor()
    expect(problems).toEqual([])
    await context.close()
  }, 90_000)

  test("an admin: route health, every account's tasks, resetting a password and unlocking a throttled login", async () => {
    const { gateway } = setup
    for (let attempt = 0; attempt < 5; attempt++) await postSignIn(gateway.url, 'alice', 'wrong-wrong-wrong')
    expect((await postSignIn(gateway.url, 'alice', passwords.alice!)).status).toBe(429)
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } })
    const page = await context.newPage()
    const problems = watchConsole(page)
    await signIn(page, 'ops')
    await nav(page, 'Models')
    await page.getByTestId('routes-table').waitFor()
    expect(await page.getByTestId('routes-table').textContent()).toContain('closed')
    await saveScreenshot(page, 'manage-8-admin-models')
    await nav(page, 'Tasks')
    await page.getByTestId('tasks-table').waitFor()
    expect(await page.getByTestId('tasks-table').textContent()).toContain(gateway.account.name)
    await saveScreenshot(page, 'manage-9-admin-tasks')

    await nav(page, 'Logins')
    await page.getByRole('button', { name: 'Unlock sign-in for alice' }).click()
    await page.getByTestId('login-notice').waitFor()
    expect((await postSignIn(gateway.url, 'alice', passwords.alice!)).status).toBe(200)
    await page.getByRole('button', { name: 'Reset the password of alice' }).click()
    await page.getByRole('dialog').getByRole('button', { name: 'Reset password' }).click()
    const generated = (await page.getByTestId('reset-login-password').textContent())!.trim()
    expect(generated).toMatch(/^[0-9A-Za-z]{24}$/)
    expect((await postSignIn(gateway.url, 'alice', generated)).status).toBe(200)
    await saveScreenshot(page, 'manage-10-logins')
    expect(problems).toEqual([])
    await context.close()
  }, 90_000)
})
