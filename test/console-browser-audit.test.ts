import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import type { Browser, Page } from 'playwright-core'
import { launchChromium, saveScreenshot, signInPage } from './support/browser.ts'
import { addLogin, postSignIn } from './support/console.ts'
import { startTestGateway, type TestGateway } from './support/gateway.ts'

// The Audit log page in a real (headless) Chromium: a change made in the console shows there with who made it,
// the filters narrow it and live in the address, the CSV holds what is on screen; an account admin sees its own.
let browser: Browser
let gateway: TestGateway
const passwords: Record<string, string> = {}

beforeAll(async () => {
  browser = await launchChromium()
  gateway = await startTestGateway({ balanceUsd: '25' })
  const { store } = gateway.gateway.services
  passwords.ops = await addLogin(store, 'ops', 'admin')
  passwords.ann = await addLogin(store, 'ann', 'account-admin', gateway.account.id)
  await gateway.createAccount('other-co', '3')
}, 30_000)

afterAll(async () => {
  await browser?.close()
  await gateway?.stop()
})

const signIn = (username: string) => signInPage(browser, gateway.url, username, passwords[username]!)

const nav = (page: Page, name: string) => page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name }).click()
const auditRows = (page: Page) => page.getByTestId('audit-log').locator('tbody tr')

describe('the Audit log page in Chromium', () => {
  test('an admin edits a key, finds the change on the Audit log page, filters it and downloads it as CSV', async () => {
    const { record } = await gateway.createKey({ name: 'laptop' })
    expect((await postSignIn(gateway.url, 'ann', 'not-her-password')).status).toBe(401)
    const { page, problems, close } = await signIn('ops')

    await page.goto(`${gateway.url}/console/keys/${record.id}`)
    await page.getByRole('button', { name: 'Edit limits' }).click()
    const form = page.getByRole('form', { name: 'Edit key' })
    await form.getByLabel('Requests per minute').fill('42')
    await form.getByRole('button', { name: 'Save changes' }).click()
    await page.getByTestId('key-rpm').getByText('42', { exact: true }).waitFor()

    await nav(page, 'Audit log')
    await page.getByRole('heading', { name: 'Audit log', level: 1 }).waitFor()
    const newest = auditRows(page).first()
    await newest.getByText('key.edit').waitFor()
    expect(await newest.getByRole('cell').allTextContents()).toEqual([
      expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/),
      'ops',
      '127.0.0.1',
      'key.edit',
      `key ${record.id}`,
      'rpm: — → 42',
    ])
    // The sign-ins are there: ops's own, and the failed one under ann's name, by nobody known.
    await page.getByTestId('audit-log').getByText('user.sign-in-failed').waitFor()
    await saveScreenshot(page, 'audit-1-admin')

    // Filter by actor and object: the address says so, and only that row is left.
    await page.getByLabel('Actor').fill('ops')
    await page.getByLabel('Object', { exact: true }).selectOption('key')
    await page.getByRole('button', { name: 'Apply filters' }).click()
    await page.waitForURL(/\/console\/audit\?.*actor=ops.*object=key/)
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="audit-log"] tbody tr').length === 1)
    expect(await auditRows(page).first().getByRole('cell').nth(3).textContent()).toBe('key.edit')
    // The key's id links to its page.
    expect(await auditRows(page).first().getByRole('link', { name: record.id }).getAttribute('href')).toBe(`/console/keys/${record.id}`)
    await saveScreenshot(page, 'audit-2-filtered')

    const [csv] = await Promise.all([page.waitForEvent('download'), page.getByTestId('download-audit-csv').click()])
    expect(csv.suggestedFilename()).toMatch(/^tollgate-audit-\d{4}-\d\d-\d\d\.csv$/)
    const [header, ...lines] = readFileSync((await csv.path())!, 'utf8')
      .trim()
      .split('\r\n')
    expect(header).toBe('at,action,object_type,object_id,account_id,actor_kind,actor_id,actor,address,before,after')
    expect(lines).toHaveLength(1)
    expect(lines[0]).toContain(`,key.edit,key,${record.id},${gateway.account.id},user,`)
    expect(lines[0]).toEndWith(',ops,127.0.0.1,"{""rpm"":null}","{""rpm"":42}"')

    // Nothing matches a time in the future: an empty state, not an error.
    await page.goto(`${gateway.url}/console/audit?from=2099-01-01&to=2099-01-02`)
    await page.getByText('No changes match these filters.').waitFor()
    expect(problems).toEqual([])
    await close()
  }, 60_000)

  test("an account admin sees its own account's changes and nothing of another account or the gateway", async () => {
    const { page, problems, close } = await signIn('ann')
    await nav(page, 'Audit log')
    await auditRows(page).first().waitFor()
    const text = (await page.getByTestId('audit-log').textContent())!
    expect(text).toContain('key.edit')
    expect(text).toContain('user.sign-in')
    expect(text).not.toContain('other-co')
    // No account filter: it is always her own.
    expect(await page.getByLabel('Account', { exact: true }).count()).toBe(0)
    await saveScreenshot(page, 'audit-3-account-admin')
    expect(problems).toEqual([])
    await close()
  }, 60_000)
})
