import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { Browser, Page } from 'playwright-core'
import { launchChromium, saveScreenshot, signInPage } from './support/browser.ts'
import { addLogin } from './support/console.ts'
import { mockConfig, startTestGateway, type TestGateway } from './support/gateway.ts'
import { startWebhookReceiver, type WebhookReceiver } from './support/webhook-receiver.ts'

// Issue 27's alerts and address rules in a real (headless) Chromium. The Webhooks page: an account admin makes a
// webhook and sees its secret once, a delivery that a receiver refuses shows with its error and attempts, a refused
// URL is named on its field, and a webhook is deleted; a viewer has no such page. A key's allowed addresses are set
// from its page, a bad entry named on the field.
let browser: Browser
let gateway: TestGateway
let receiver: WebhookReceiver
const passwords: Record<string, string> = {}

beforeAll(async () => {
  browser = await launchChromium()
  // Private receivers allowed (the receiver is on loopback); failed deliveries retried slowly enough to be seen pending.
  gateway = await startTestGateway({
    config: { ...mockConfig, webhooks: { allow_private_addresses: true, first_retry_ms: 60_000, poll_ms: 50 } },
  })
  receiver = startWebhookReceiver({ status: 500 })
  const { store } = gateway.gateway.services
  passwords.ann = await addLogin(store, 'ann', 'account-admin', gateway.account.id)
  passwords.vic = await addLogin(store, 'vic', 'viewer', gateway.account.id)
}, 30_000)

afterAll(async () => {
  await browser?.close()
  await gateway?.stop()
  await receiver?.stop()
})

const signIn = (username: string) => signInPage(browser, gateway.url, username, passwords[username]!)
const nav = (page: Page, name: string) => page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name }).click()

describe('alerts and address rules in Chromium', () => {
  test('an account admin makes a webhook, sees the secret once, follows a failing delivery, and deletes it', async () => {
    const { page, problems, close } = await signIn('ann')
    await nav(page, 'Webhooks')
    await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor()
    await page.getByText('No webhooks yet.').waitFor()

    const form = page.getByRole('form', { name: 'New webhook' })
    // A URL the gateway will not call is refused on its field.
    await form.getByLabel('URL').fill('ftp://hooks.example.com/x')
    await form.getByRole('button', { name: 'Create webhook' }).click()
    await form.getByText(/must be http or https/).waitFor()

    await form.getByLabel('URL').fill(receiver.url)
    await form.getByLabel('Keys about to expire').uncheck()
    await form.getByLabel('Balance below (USD)').fill('2.50')
    await form.getByLabel('Budget thresholds (%)').fill('75, 100')
    await form.getByRole('button', { name: 'Create webhook' }).click()
    const secret = await page.getByTestId('webhook-secret').textContent()
    expect(secret).toStartWith('whsec_')
    const row = page.getByTestId('webhooks-table').locator('tbody tr').first()
    await row.getByText(receiver.url).waitFor()
    expect(await row.getByRole('cell').nth(1).textContent()).toBe('balance < $2.50 · budgets 75/100 %')
    await saveScreenshot(page, 'webhooks-1-created')

    // A budget reaches 75 %: the receiver answers 500, so the delivery shows pending with its error and next attempt.
    const webhookId = (await row.getAttribute('data-webhook-id'))!
    gateway.gateway.services.alerting.alerts.spendObserved({
      scope: { kind: 'account', accountId: gateway.account.id },
      budgetId: 'bud_page',
      periodStart: 0,
      spent: 80,
      limit: 100,
    })
    const deliveries = gateway.gateway.services.store.webhooks
    const deadline = Date.now() + 10_000
    while ((await deliveries.listDeliveries({ webhookId }, 5))[0]?.attempts !== 1 && Date.now() < deadline) await Bun.sleep(25)
    await row.getByRole('button', { name: 'Deliveries' }).click()
    const delivery = page.getByTestId('deliveries-table').locator('tbody tr').first()
    await delivery.getByText('budget.threshold').waitFor()
    expect(await delivery.getByRole('cell').allTextContents()).toEqual([
      'budget.threshold',
      'pending',
      '1',
      expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/),
      expect.stringMatching(/^\d{4}-/),
      expect.stringMatching(/^\d{4}-/),
      'the receiver answered 500',
    ])
    // None given up yet.
    await page.getByLabel('Only deliveries given up').check()
    await page.getByText('No deliveries given up.').waitFor()
    await saveScreenshot(page, 'webhooks-2-deliveries')
    // The secret was shown once: a fresh visit shows none, and the list holds none.
    await page.reload()
    await page.getByTestId('webhooks-table').waitFor()
    expect(await page.getByTestId('webhook-secret').count()).toBe(0)
    expect(await page.content()).not.toContain(secret!)

    await page.getByTestId('webhooks-table').getByRole('button', { name: 'Delete' }).click()
    await page.getByRole('dialog').getByRole('button', { name: 'Delete webhook' }).click()
    await page.getByText('No webhooks yet.').waitFor()
    expect(await gateway.gateway.services.store.webhooks.list(gateway.account.id)).toEqual([])
    // The one failed request is the refused URL's 400, on purpose.
    expect(problems).toEqual(['Failed to load resource: the server responded with a status of 400 (Bad Request)'])
    await close()
  })

  test('an account admin limits a key to addresses from its page; a bad entry is named on the field', async () => {
    const { record } = await gateway.createKey({ name: 'office' })
    const { page, problems, close } = await signIn('ann')
    await page.goto(`${gateway.url}/console/keys/${record.id}`)
    await page.getByRole('button', { name: 'Edit limits' }).click()
    const form = page.getByRole('form', { name: 'Edit key' })
    await form.getByLabel('Allowed addresses').fill('203.0.113.0/24, 10.0.0.300')
    await form.getByRole('button', { name: 'Save changes' }).click()
    await form
      .getByText(`Invalid value for 'allowed_ips': it has a bad entry 2: "10.0.0.300" is not an IP address`, { exact: false })
      .waitFor()
    await form.getByLabel('Allowed addresses').fill('203.0.113.0/24 2001:db8::/32')
    await form.getByRole('button', { name: 'Save changes' }).click()
    await page.getByTestId('key-allowed-ips').getByText('203.0.113.0/24, 2001:db8::/32', { exact: true }).waitFor()
    expect((await gateway.gateway.services.store.keys.findById(record.id))!.allowedIps).toEqual(['203.0.113.0/24', '2001:db8::/32'])
    expect(problems).toEqual(['Failed to load resource: the server responded with a status of 400 (Bad Request)'])
    await close()
  })

  test('a viewer has no Webhooks page', async () => {
    const { page, problems, close } = await signIn('vic')
    expect(await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Webhooks' }).count()).toBe(0)
    await page.goto(`${gateway.url}/console/webhooks`)
    await page.getByRole('heading', { name: 'Page not found' }).waitFor()
    expect(problems).toEqual([])
    await close()
  })
})
