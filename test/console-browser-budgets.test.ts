import { afterAll, beforeAll, expect, test } from 'bun:test'
import type { Browser } from 'playwright-core'
import { exactChat, exactModel } from './support/budgets.ts'
import { launchChromium, saveScreenshot, signInPage } from './support/browser.ts'
import { addLogin } from './support/console.ts'
import { mockConfig, startTestGateway, type TestGateway } from './support/gateway.ts'

// The Budgets page in a real (headless) Chromium: an account admin makes a project and budgets with the forms, the
// team's requests show as spend, a bar and a reset time; a viewer of the account sees the same, with no forms.
let browser: Browser
let gateway: TestGateway
const passwords: Record<string, string> = {}

beforeAll(async () => {
  browser = await launchChromium()
  gateway = await startTestGateway({ config: { ...mockConfig, models: [...mockConfig.models, exactModel] } })
  const { store } = gateway.gateway.services
  passwords.ann = await addLogin(store, 'ann', 'account-admin', gateway.account.id)
  passwords.vic = await addLogin(store, 'vic', 'viewer', gateway.account.id)
}, 30_000)

afterAll(async () => {
  await browser?.close()
  await gateway?.stop()
})

test('an account admin creates a project and its budgets; spend, the bar and the reset show; a viewer reads them', async () => {
  const { page, problems, close } = await signInPage(browser, gateway.url, 'ann', passwords.ann!)
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Budgets' }).click()
  await page.getByRole('heading', { name: 'Projects and budgets', level: 1 }).waitFor()
  await page.getByText('No budgets yet.').waitFor()

  const projectForm = page.getByRole('form', { name: 'New project' })
  await projectForm.getByLabel('Name').fill('team')
  await projectForm.getByLabel('Requests per minute, shared').fill('600')
  await projectForm.getByLabel('Allowed addresses').fill('127.0.0.1 ::1') // the team's requests below come from loopback
  await projectForm.getByRole('button', { name: 'Create project' }).click()
  const projectRow = page.getByTestId('projects-table').locator('tbody tr')
  await projectRow.getByText('team').waitFor()
  expect(await projectRow.getByRole('cell').allTextContents()).toEqual(['team', 'all', '600 rpm', '127.0.0.1, ::1', '0', 'EditDelete'])

  const budgetForm = page.getByRole('form', { name: 'New budget' })
  await budgetForm.getByLabel('For').selectOption({ label: 'Project team' })
  await budgetForm.getByLabel('Amount (USD)').fill('0.015')
  await budgetForm.getByLabel('Period').fill('5h')
  await budgetForm.getByRole('button', { name: 'Create budget' }).click()
  await page.getByTestId('budgets-table').getByText('Project team').waitFor()
  await budgetForm.getByLabel('For').selectOption({ label: 'Whole account' })
  await budgetForm.getByLabel('Amount (USD)').fill('20')
  await budgetForm.getByLabel('Period').fill('month')
  await budgetForm.getByLabel('Time zone').fill('Europe/Berlin')
  await budgetForm.getByRole('button', { name: 'Create budget' }).click()
  await page.getByTestId('budgets-table').getByText('Whole account').waitFor()
  const windowRow = page.getByTestId('budgets-table').locator('tbody tr', { hasText: 'Project team' })
  expect(await windowRow.getByTestId('budget-resets').textContent()).toBe('with its first request')

  // A key made in the console joins the project; two of its requests are 40% of the window, which now resets 5 hours
  // after the first.
  await page.goto(`${gateway.url}/console/keys/new`)
  await page.getByLabel('Name').fill('teammate')
  await page.getByLabel('Project').selectOption({ label: 'team' })
  await page.getByRole('button', { name: 'Create key' }).click()
  const secret = (await page.getByTestId('new-key-secret').textContent())!.trim()
  const [made] = (await gateway.gateway.services.store.keys.list(gateway.account.id)).filter((key) => key.name === 'teammate')
  expect(made?.projectId).toBe((await gateway.gateway.services.store.budgets.listProjects(gateway.account.id))[0]!.id)
  await page.goto(`${gateway.url}/console/budgets`)
  const started = Date.now()
  for (let index = 0; index < 2; index++) expect((await exactChat(gateway.url, secret)).status).toBe(200)
  await gateway.settled()
  await page.reload()
  await windowRow.getByText('40%').waitFor()
  expect(await windowRow.getByRole('cell').allTextContents()).toEqual([
    'Project team',
    '5h window',
    '$0.015',
    '$0.006',
    '$0.009',
    '40%',
    expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/),
    'EditDelete',
  ])
  const resets = Date.parse(`${(await windowRow.getByTestId('budget-resets').textContent())!.replace(' ', 'T')}Z`)
  expect(Math.abs(resets - (started + 5 * 3_600_000))).toBeLessThan(5_000)
  const monthRow = page.getByTestId('budgets-table').locator('tbody tr', { hasText: 'Whole account' })
  expect(await monthRow.getByRole('cell').nth(1).textContent()).toBe('Monthly (Europe/Berlin)')
  expect(await monthRow.getByTestId('budget-resets').textContent()).toMatch(/ 2[23]:00:00$/) // Berlin midnight in UTC
  expect(await projectRow.getByRole('cell').nth(4).textContent()).toBe('1')
  await saveScreenshot(page, 'budgets-1-account-admin')

  // The Usage page breaks spend down by project too.
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Usage' }).click()
  const byProject = page.locator('section.panel', { hasText: 'By project' })
  await byProject.getByText('team').waitFor()
  expect(await byProject.textContent()).toContain('$0.006')
  expect(problems).toEqual([])
  await close()

  const viewer = await signInPage(browser, gateway.url, 'vic', passwords.vic!)
  await viewer.page.goto(`${gateway.url}/console/budgets`)
  await viewer.page.getByTestId('budgets-table').locator('tbody tr', { hasText: 'Project team' }).getByText('40%').waitFor()
  expect(await viewer.page.getByRole('form').count()).toBe(0)
  expect(await viewer.page.getByRole('button', { name: /^(Delete|Edit)/ }).count()).toBe(0)
  expect(viewer.problems).toEqual([])
  await viewer.close()
}, 60_000)
