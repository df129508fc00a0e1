import { afterAll, beforeAll, expect, test } from 'bun:test'
import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { signWebhook } from '../src/core/webhook-signature.ts'
import { systemActor } from '../src/domain/actor.ts'
import { mockConfig, startTestGateway, type TestGateway } from './support/gateway.ts'
import { pollUntil } from './support/poll.ts'
import { startWebhookReceiver, type WebhookReceiver } from './support/webhook-receiver.ts'

/**
 * The README's signature check, run as a receiver would paste it: extracted from the README, it accepts a real
 * delivery from the gateway and refuses a changed body, another secret and a delivery replayed after the window.
 */
type Verify = (header: string | null, body: string, secret: string, toleranceSeconds?: number) => boolean
let verify: Verify
let gateway: TestGateway
let receiver: WebhookReceiver
const file = join(tmpdir(), `readme-verify-${process.pid}.mjs`)

beforeAll(async () => {
  const readme = readFileSync(join(import.meta.dir, '..', 'README.md'), 'utf8')
  const snippet = /```js\n(import \{ createHmac[\s\S]*?function verifyTollgateSignature[\s\S]*?)```/.exec(readme)?.[1]
  if (!snippet) throw new Error('the README has no verifyTollgateSignature snippet')
  writeFileSync(file, `${snippet}\nexport { verifyTollgateSignature }\n`)
  verify = (await import(file)).verifyTollgateSignature
  gateway = await startTestGateway({ config: { ...mockConfig, webhooks: { allow_private_addresses: true } } })
  receiver = startWebhookReceiver()
})
afterAll(async () => {
  rmSync(file, { force: true })
  await gateway.stop()
  await receiver.stop()
})

test("the README's verification accepts a real delivery and refuses a changed one, another secret and a replay", async () => {
  const { secret } = await gateway.gateway.services.alerting.webhooks.create(
    { accountId: gateway.account.id, url: receiver.url },
    systemActor('test'),
  )
  gateway.gateway.services.alerting.alerts.spendObserved({
    scope: { kind: 'account', accountId: gateway.account.id },
    budgetId: 'bud_readme',
    periodStart: 0,
    spent: 1,
    limit: 2,
  })
  const [delivery] = await pollUntil(
    async () => receiver.received,
    (received) => received.length > 0,
  )
  const header = delivery!.headers.get('tollgate-signature')
  expect(verify(header, delivery!.raw, secret)).toBe(true)
  expect(verify(header, delivery!.raw.replace('"percent":50', '"percent":100'), secret)).toBe(false)
  expect(verify(header, delivery!.raw, 'whsec_another')).toBe(false)
  expect(verify(null, delivery!.raw, secret)).toBe(false)
  const sixMinutesAgo = Math.floor(Date.now() / 1000) - 360
  expect(verify(signWebhook(delivery!.raw, secret, sixMinutesAgo), delivery!.raw, secret)).toBe(false)
  expect(verify(signWebhook(delivery!.raw, secret, sixMinutesAgo + 120), delivery!.raw, secret)).toBe(true)
})
