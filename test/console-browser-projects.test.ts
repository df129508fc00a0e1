import { afterAll, beforeAll, expect, test } from 'bun:test'
import type { Browser } from 'playwright-core'
import { auditRowsOf } from './support/audit.ts'
import { exactChat, exactModel, operator } from './support/budgets.ts'
import { launchChromium, saveScreenshot, signInPage } from './support/browser.ts'
import { addLogin } from './support/console.ts'
import { mockConfig, startTestGateway, type TestGateway } from './support/gateway.ts'

// Editing and deleting projects, editing budgets and filtering usage by project, in a real (headless) Chromium, as an
// account admin: each change goes through the services (one audit row each, by the login) and counts at once.
let browser: Browser
let gateway: TestGateway
let password: string
let projectId: number
let teammate: string
let solo: string

beforeAll(async () => {
  browser = await launchChromium()
  gateway = await startTestGateway({ config: { ...mockConfig, models: [...mockConfig.models, exactModel] } })
  const { store, budgetService, keyService } = gateway.gateway.services
  password = await addLogin(store, 'ann', 'account-admin', gateway.account.id)
  const accountId = gateway.account.id
  projectId = (await budgetService.createProject({ accountId, name: 'team' }, operator)).id
  await budgetService.createBudget({ accountId, scope: 'project', projectId, amount: 10_000_000_000, period: 'month' }, operator)
  teammate = (await keyService.create({ accountId, name: 'teammate', projectId }, operator)).secret
  solo = (await keyService.create({ accountId, name: 'solo' }, operator)).secret
}, 30_000)

afterAll(async () => {
  await browser?.close()
  await gateway?.stop()
})

test('an account admin edits and deletes a project, edits a budget and filters usage by project', async () => {
  // One request in the project, two outside it.
  expect((await exactChat(gateway.url, teammate)).status).toBe(200)
  for (let index = 0; index < 2; index++) expect((await exactChat(gateway.url, solo)).status).toBe(200)
  await gateway.settled()
  const { store } = gateway.gateway.services
  const { page, problems, close } = await signInPage(browser, gateway.url, 'ann', password)

  await page.goto(`${gateway.url}/console/usage`)
  await page.getByLabel('Project', { exact: true }).selectOption({ label: 'team' })
  await page.getByRole('button', { name: 'Apply filters' }).click()
  await page.waitForURL(/project=\d+/)
  // The filtered log replaces the unfiltered one (three rows) after a reload: wait for it, not for any first row.
  await page.getByTestId('request-log').locator('tbody tr', { hasText: 'teammate' }).waitFor()
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="request-log"] tbody tr').length === 1, undefined, {
    timeout: 5000,
  })
  expect(await page.getByTestId('request-log').locator('tbody tr').count()).toBe(1)
  expect(await page.getByTestId('usage-summary').textContent()).toContain('$0.003')

  await page.goto(`${gateway.url}/console/budgets`)
  const projectRow = page.getByTestId('projects-table').locator('tbody tr')
  await projectRow.getByText('team').waitFor()
  const edits = await auditRowsOf(store, async () => {
    await projectRow.getByRole('button', { name: 'Edit project team' }).click()
    const form = page.getByRole('form', { name: 'Edit project team' })
    await form.getByLabel('Allowed addresses').fill('10.0.0.300')
    await form.getByRole('button', { name: 'Save project' }).click()
    await form.getByText('"10.0.0.300" is not an IP address').waitFor() // refused in place, nothing stored
    await form.getByLabel('Name').fill('core')
    await form.getByLabel('Requests per minute, shared').fill('100')
    await form.getByLabel('Allowed addresses').fill('203.0.113.0/24, 2001:db8::/32')
    await form.getByRole('button', { name: 'Save project' }).click()
    await projectRow.getByText('core').waitFor()
  })
  expect(await projectRow.getByRole('cell').allTextContents()).toEqual([
    'core',
    'all',
    '100 rpm',
    '203.0.113.0/24, 2001:db8::/32',
    '1',
    'EditDelete',
  ])
  expect(edits.map((row) => [row.action, row.actor.label, row.after])).toEqual([
    ['project.edit', 'ann', { name: 'core', rpm: 100, allowed_ips: ['203.0.113.0/24', '2001:db8::/32'] }],
  ])
  // The project's rules count from the next request: the teammate's loopback address is outside them now.
  expect((await exactChat(gateway.url, teammate)).status).toBe(403)

  const budgetRow = page.getByTestId('budgets-table').locator('tbody tr', { hasText: 'Project core' })
  await budgetRow.getByRole('button', { name: /^Edit budget/ }).click()
  const budgetForm = page.getByRole('form', { name: 'Edit budget: Project core' })
  await budgetForm.getByLabel('Amount (USD)').fill('12.5')
  await budgetForm.getByLabel('Period').fill('week')
  await budgetForm.getByLabel('Time zone').fill('Europe/Berlin')
  await budgetForm.getByRole('button', { name: 'Save budget' }).click()
  await budgetRow.getByText('Weekly (Europe/Berlin)').waitFor()
  expect(await budgetRow.getByRole('cell').nth(2).textContent()).toBe('$12.50')
  await saveScreenshot(page, 'projects-1-edited')

  await projectRow.getByRole('button', { name: 'Delete project core' }).click()
  await page.getByRole('dialog').getByRole('button', { name: 'Delete project' }).click()
  await page.getByText('No projects yet.').waitFor()
  await page.getByText('No budgets yet.').waitFor() // its budget went with it
  const keys = await store.keys.list(gateway.account.id)
  expect(keys.map((key) => [key.name, key.projectId])).toEqual(
    expect.arrayContaining([
      ['teammate', null],
      ['solo', null],
    ]),
  )
  expect((await exactChat(gateway.url, teammate)).status).toBe(200) // in no project: no address rules
  const actions = (await store.audit.list({}, 1000))
    .filter((row) => row.actor.label === 'ann' && row.action !== 'user.sign-in')
    .map((row) => row.action)
    .reverse()
  expect(actions).toEqual(['project.edit', 'budget.edit', 'project.delete'])
  // The one refused save is the only failed call the page saw.
  expect(problems).toEqual(['Failed to load resource: the server responded with a status of 400 (Bad Request)'])
  await close()
}, 60_000)
