import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { Browser, Page } from 'playwright-core'
import { launchChromium, saveScreenshot, watchConsole } from './support/browser.ts'
import { addLogin } from './support/console.ts'
import { startOutcomeTraffic, type OutcomeTraffic } from './support/outcomes.ts'

// What once misled a newcomer in the console, checked in a real (headless) Chromium: usage split by outcome, the
// reason of a refusal on the page, the balance history in time order, the least-privileged new login, the header's
// role, route health's window, and the /docs tables' headers.
let browser: Browser
let traffic: OutcomeTraffic
let password: string

beforeAll(async () => {
  browser = await launchChromium()
  traffic = await startOutcomeTraffic(4)
  password = await addLogin(traffic.gateway.gateway.services.store, 'admin', 'admin')
}, 30_000)

afterAll(async () => {
  await browser?.close()
  await traffic?.stop()
})

async function signIn(page: Page): Promise<void> {
  await page.goto(`${traffic.gateway.url}/console`)
  await page.getByLabel('Username').fill('admin')
  await page.getByLabel('Password').fill(password)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor()
}

const stat = (page: Page, label: string) =>
  page
    .getByTestId('usage-summary')
    .locator('.stat', { has: page.locator('dt', { hasText: new RegExp(`^${label}$`) }) })
    .locator('dd')

describe('the console no longer misleads', () => {
  test('usage, the request log, the balance history, logins, the header and route health', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
    const problems = watchConsole(page)
    await signIn(page)
    expect(await page.getByTestId('who-role').textContent()).toBe(' · Administrator') // not "admin · admin"

    // Usage for the account: answered, refused and failed apart, in the cards and the tables.
    await page.goto(`${traffic.gateway.url}/console/usage?account=${traffic.gateway.account.id}`)
    await page.getByTestId('usage-summary').waitFor()
    expect([
      await stat(page, 'Answered').textContent(),
      await stat(page, 'Refused').textContent(),
      await stat(page, 'Failed').textContent(),
    ]).toEqual(['2', '6', '1'])
    const byModel = page.locator('section', { has: page.getByRole('heading', { name: 'By model' }) })
    const modelRow = async (label: string) => (await byModel.locator('tr', { hasText: label }).locator('td').allTextContents()).slice(0, 4)
    expect(await modelRow('refused before the model was read')).toEqual(['refused before the model was read', '0', '1', '0'])
    expect(await modelRow('gpt-typo (not configured)')).toEqual(['gpt-typo (not configured)', '0', '1', '0'])
    expect(await modelRow('broken')).toEqual(['broken', '0', '0', '1'])
    await saveScreenshot(page, 'first-hour-1-usage')

    // The request log says why a request was refused, on the page.
    await page.getByTestId('request-log').waitFor()
    const reasons = await page.getByTestId('request-reason').allTextContents()
    expect(reasons).toContain(' refused: rate limit exceeded')
    expect(reasons.some((reason) => reason.startsWith(' failed: '))).toBe(true)
    expect(await page.getByTestId('request-log').textContent()).toContain('refused before the model was read')
    await saveScreenshot(page, 'first-hour-2-request-log')

    // The balance history reads top to bottom in time, each row with the balance after it.
    await page.goto(`${traffic.gateway.url}/console/accounts/${traffic.gateway.account.id}`)
    const history = page.getByTestId('balance-history')
    await history.waitFor()
    const rows = await history
      .locator('tbody tr')
      .evaluateAll((all) => all.map((row) => [...row.querySelectorAll('td')].map((cell) => cell.textContent!.trim())))
    expect(rows.map((cells) => (cells[1]!.startsWith('Usage') ? 'usage' : cells[1]!.replace(/ — by .*/, '')))).toEqual([
      'usage',
      'top-up between requests',
      'usage',
      'opening balance',
    ])
    expect(rows.every((cells) => cells[3]!.startsWith('$'))).toBe(true) // no "—" for spending
    expect(rows[0]![0]).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(–\d\d:\d\d:\d\d)?$/) // the span of the spending
    await saveScreenshot(page, 'first-hour-3-balance-history')

    // A new login is a viewer (the least privilege) unless a stronger role is chosen.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Logins' }).click()
    await page.getByLabel('Role').waitFor()
    expect(await page.getByLabel('Role').inputValue()).toBe('viewer')

    // The key list says what its prefix is: kept to recognise a key, while the secret is stored only as a hash.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Keys' }).click()
    expect(await page.getByTestId('key-prefix-note').textContent()).toContain("a secret's first characters, kept to recognise it")

    // Route health names the window its counts cover.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Models' }).click()
    await page.getByTestId('routes-table').waitFor()
    expect(await page.getByTestId('routes-window').textContent()).toContain('the last 1 min only')
    expect(await page.getByTestId('routes-table').locator('thead').textContent()).toContain('Requests (last 1 min)')
    await saveScreenshot(page, 'first-hour-4-route-health')
    expect(problems).toEqual([])
    await page.close()
  }, 60_000)

  test('/docs: every column of every table has its header', async () => {
    const page = await browser.newPage()
    await page.goto(`${traffic.gateway.url}/docs`)
    await page.locator('table').first().waitFor()
    const tables = await page.locator('table').evaluateAll((all) =>
      all.map((table) => ({
        headers: [...table.querySelectorAll(':scope > thead th')].map((cell) => cell.textContent),
        columns: Math.max(...[...table.querySelectorAll(':scope > tbody > tr')].map((row) => row.children.length)),
      })),
    )
    expect(tables.length).toBeGreaterThan(10)
    for (const table of tables) {
      expect(table.headers.every((header) => header !== '')).toBe(true)
      expect(table.headers.length).toBe(table.columns)
    }
    expect(tables.map((table) => table.headers.join('|'))).toContain('Field|Type|Required|Description')
    expect(tables.map((table) => table.headers.join('|'))).toContain('Parameter|In|Type|Required|Description')
    await saveScreenshot(page, 'first-hour-5-docs')
    await page.close()
  }, 30_000)
})
