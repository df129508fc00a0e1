import { afterAll, beforeAll, expect, test } from 'bun:test'
import { launchChromium, saveScreenshot, signInPage } from './support/browser.ts'
import { addLogin, signIn } from './support/console.ts'
import { startTestGateway, type TestGateway } from './support/gateway.ts'

/**
 * The console's model list shows what image and rerank models really cost — per image by size and quality, per
 * search unit — exactly, beside the token prices of models priced per token.
 */
let gateway: TestGateway

beforeAll(async () => {
  gateway = await startTestGateway({
    config: {
      providers: [{ name: 'mock', type: 'mock' }],
      models: [
        { id: 'mock-1', provider: 'mock', price: { input: 1, output: 2 } },
        { id: 'draw', kind: 'image', provider: 'mock', price: { images: { '1024x1024/low': '0.011', '256x256': '0.016' } } },
        { id: 'draw-tokens', kind: 'image', provider: 'mock', price: { input: 5, output: 40 }, max_output_tokens: 6240 },
        { id: 'rank', kind: 'rerank', provider: 'mock', price: { search_unit: '0.002' } },
      ],
    },
  })
})

afterAll(async () => {
  await gateway?.stop()
})

test('GET /console/api/models: images_usd and search_unit_usd, exact, only where a model bills them', async () => {
  const admin = await signIn(gateway.url, 'root', await addLogin(gateway.gateway.services.store, 'root', 'admin'))
  const models = (await (await admin.get('/console/api/models')).json()) as { id: string; kind: string; price: Record<string, unknown> }[]
  const byId = new Map(models.map((model) => [model.id, model]))
  expect(byId.get('draw')).toMatchObject({ kind: 'image', price: { images_usd: { '1024x1024/low': '0.011', '256x256': '0.016' } } })
  expect(byId.get('draw-tokens')!.price).toMatchObject({ input_usd: '5.00', output_usd: '40.00' })
  expect(byId.get('draw-tokens')!.price.images_usd).toBeUndefined()
  expect(byId.get('rank')).toMatchObject({ kind: 'rerank', price: { search_unit_usd: '0.002' } })
  expect(byId.get('mock-1')!.price).not.toHaveProperty('search_unit_usd')
})

test('the Models page in Chromium: per image by size and quality, per search unit, where a token model shows its input price', async () => {
  const browser = await launchChromium()
  try {
    const password = await addLogin(gateway.gateway.services.store, 'viewer', 'admin')
    const { page, problems, close } = await signInPage(browser, gateway.url, 'viewer', password)
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Models' }).click()
    await page.getByTestId('models-table').waitFor()
    const rows = await page.getByTestId('models-table').locator('tbody tr').allTextContents()
    expect(rows.find((row) => row.startsWith('draw ·'))).toContain('1024x1024/low $0.011 · 256x256 $0.016 per image')
    expect(rows.find((row) => row.startsWith('rank'))).toContain('$0.002 per search unit')
    expect(rows.find((row) => row.startsWith('draw-tokens'))).toContain('$5.00$40.00') // input, then output: its images' tokens
    expect(rows.find((row) => row.startsWith('draw-tokens'))).toContain('6,240')
    await saveScreenshot(page, 'models-unit-prices')
    expect(problems).toEqual([])
    await close()
  } finally {
    await browser.close()
  }
}, 60_000)
