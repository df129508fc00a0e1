import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import Anthropic from '@anthropic-ai/sdk'
import type { Browser, Page } from 'playwright-core'
import { launchChromium, saveScreenshot, signInPage } from './support/browser.ts'
import { pollUntil } from './support/batches.ts'
import { addLogin } from './support/console.ts'
import { startTestGateway, type TestGateway } from './support/gateway.ts'

// What each role is offered in a real (headless) Chromium: the console hides what the role cannot do.
let browser: Browser
let gateway: TestGateway
let keyId: string
let taskId: string
const passwords: Record<string, string> = {}

beforeAll(async () => {
  browser = await launchChromium()
  gateway = await startTestGateway({ balanceUsd: '25' })
  const { store } = gateway.gateway.services
  passwords.ops = await addLogin(store, 'ops', 'admin')
  passwords.ann = await addLogin(store, 'ann', 'account-admin', gateway.account.id)
  passwords.vic = await addLogin(store, 'vic', 'viewer', gateway.account.id)
  const key = await gateway.createKey({ name: 'shared-laptop' })
  keyId = key.record.id
  const anthropic = new Anthropic({ baseURL: gateway.url, apiKey: key.secret, maxRetries: 0 })
  const batch = await anthropic.messages.batches.create({
    requests: [{ custom_id: 'only', params: { model: 'mock-1', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] } }],
  })
  await pollUntil(
    () => anthropic.messages.batches.retrieve(batch.id),
    (value) => value.processing_status === 'ended',
  )
  taskId = batch.id
}, 60_000)

afterAll(async () => {
  await browser?.close()
  await gateway?.stop()
})

const signIn = (username: string) => signInPage(browser, gateway.url, username, passwords[username]!)

const navigation = async (page: Page) => await page.getByRole('navigation', { name: 'Main' }).getByRole('link').allTextContents()
const options = (page: Page) => page.getByLabel('Role').locator('option').allTextContents()

/** Open a page by its address (as a bookmark would) and wait until it has rendered its heading. */
async function open(page: Page, path: string, heading: string): Promise<void> {
  await page.goto(`${gateway.url}${path}`)
  await page.getByRole('heading', { name: heading, level: 1 }).waitFor()
}

describe('roles in Chromium', () => {
  test('a viewer reads its account and is offered no change at all', async () => {
    const { page, problems, close } = await signIn('vic')
    expect(await page.getByTestId('who-role').textContent()).toBe(` · Viewer of ${gateway.account.name}`)
    expect(await navigation(page)).toEqual(['Overview', 'Keys', 'Budgets', 'Usage', 'Tasks', 'Models', 'Balance'])
    expect(await page.getByRole('link', { name: 'Create key' }).count()).toBe(0)
    await saveScreenshot(page, 'roles-viewer-1-overview')

    await open(page, '/console/keys', 'API keys')
    await page.getByTestId('keys-table').getByText('shared-laptop').waitFor()
    expect(await page.getByRole('link', { name: 'Create key' }).count()).toBe(0)
    expect(await page.getByRole('button', { name: /Revoke/ }).count()).toBe(0)
    await saveScreenshot(page, 'roles-viewer-2-keys')

    await open(page, `/console/keys/${keyId}`, 'shared-laptop')
    await page.getByTestId('key-spent').waitFor()
    for (const name of ['Edit limits', 'Rotate secret', /^Revoke/]) expect(await page.getByRole('button', { name }).count()).toBe(0)
    await saveScreenshot(page, 'roles-viewer-3-key')

    await open(page, `/console/tasks/${taskId}`, taskId)
    await page.getByTestId('task-spent').waitFor()
    expect(await page.getByRole('link', { name: 'Download results (JSONL)' }).count()).toBe(0)

    // Pages of what a viewer cannot do do not exist for it, even typed in.
    await open(page, '/console/keys/new', 'Page not found')
    await open(page, '/console/logins', 'Page not found')
    await open(page, '/console/audit', 'Page not found')
    await saveScreenshot(page, 'roles-viewer-4-no-logins-page')
    expect(problems).toEqual([])
    await close()
  }, 60_000)

  test("an account admin manages its account's keys and logins; New login offers viewer first, never admin", async () => {
    const { page, problems, close } = await signIn('ann')
    expect(await page.getByTestId('who-role').textContent()).toBe(` · Account admin of ${gateway.account.name}`)
    expect(await navigation(page)).toEqual([
      'Overview',
      'Keys',
      'Budgets',
      'Usage',
      'Tasks',
      'Models',
      'Logins',
      'Audit log',
      'Webhooks',
      'Balance',
    ])
    await page.getByRole('link', { name: 'Create key' }).waitFor()

    await open(page, `/console/keys/${keyId}`, 'shared-laptop')
    for (const name of ['Edit limits', 'Rotate secret', /^Revoke/]) await page.getByRole('button', { name }).waitFor()
    await open(page, `/console/tasks/${taskId}`, taskId)
    await page.getByRole('link', { name: 'Download results (JSONL)' }).waitFor()

    await open(page, '/console/logins', 'Logins')
    await page.getByRole('cell', { name: 'vic', exact: true }).waitFor()
    expect(await page.getByRole('cell', { name: 'ops', exact: true }).count()).toBe(0) // the admin is of no account
    expect(await options(page)).toEqual(['Viewer', 'Account admin'])
    expect(await page.getByLabel('Role').inputValue()).toBe('viewer')
    expect(await page.getByLabel('Account', { exact: true }).count()).toBe(0) // always its own account
    await page.getByLabel('Username').fill('newbie')
    await page.getByRole('button', { name: 'Create login' }).click()
    await page.getByTestId('new-login-password').waitFor()
    await page
      .getByRole('row', { name: /newbie/ })
      .getByRole('cell', { name: 'Viewer' })
      .waitFor()
    await saveScreenshot(page, 'roles-account-admin-logins')
    const newbie = await gateway.gateway.services.store.users.findByName('newbie')
    expect(newbie).toMatchObject({ role: 'viewer', accountId: gateway.account.id })
    expect(problems).toEqual([])
    await close()
  }, 60_000)

  test('an admin is offered all three roles, viewer first and chosen; an admin login asks for no account', async () => {
    const { page, problems, close } = await signIn('ops')
    expect(await page.getByTestId('who-role').textContent()).toBe(' · Administrator')
    expect(await navigation(page)).toEqual([
      'Overview',
      'Accounts',
      'Keys',
      'Budgets',
      'Usage',
      'Tasks',
      'Models',
      'Logins',
      'Audit log',
      'Webhooks',
    ])
    await open(page, '/console/logins', 'Logins')
    expect(await options(page)).toEqual(['Viewer', 'Account admin', 'Admin'])
    expect(await page.getByLabel('Role').inputValue()).toBe('viewer')
    await page.getByLabel('Account', { exact: true }).waitFor()
    await page.getByLabel('Role').selectOption('admin')
    await page.getByLabel('Account', { exact: true }).waitFor({ state: 'detached' })
    await saveScreenshot(page, 'roles-admin-new-login')
    // The API documentation says who may call each route.
    await page.goto(`${gateway.url}/docs`)
    const revoke = page.locator('section.operation', { hasText: '/console/api/keys/{id}/revoke' })
    expect(await revoke.locator('.permission').textContent()).toBe(
      'Permission keys:write: admin, account-admin (see the role matrix in the README).',
    )
    expect(problems).toEqual([])
    await close()
  }, 60_000)
})
