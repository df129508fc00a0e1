import { createAdminToken } from '../../src/domain/admin-tokens.ts'
import { creditAccount } from '../../src/domain/accounts.ts'
import { parseUsd } from '../../src/core/money.ts'
import { startTestGateway, type TestGateway } from './gateway.ts'
import { jsonReply, startUpstream, type TestUpstream } from './upstream.ts'

/**
 * A gateway with traffic of every outcome on one account: one answered request and `refusedByLimit` refused by a
 * key's rpm: 1 (the "1 answered and 2,176 refused", smaller); a body that is not JSON (refused before its
 * model was read), a model nobody configured (refused), and a model whose upstream is down (failed). Between the
 * first answer and the rest an admin credits the account, so the balance history has spending on both sides of it.
 */
export interface OutcomeTraffic {
  gateway: TestGateway
  upstream: TestUpstream
  adminToken: string
  limitedKeyId: string
  refusedByLimit: number
  stop(): Promise<void>
}

export async function startOutcomeTraffic(refusedByLimit = 5): Promise<OutcomeTraffic> {
  const upstream = startUpstream(() => jsonReply({ error: { message: 'overloaded', type: 'server_error' } }, 503))
  const gateway = await startTestGateway({
    balanceUsd: '10',
    config: {
      providers: [
        { name: 'mock', type: 'mock' },
        { name: 'down', type: 'openai', base_url: `${upstream.url}/v1` },
      ],
      models: [
        { id: 'mock-1', provider: 'mock', price: { input: 1, output: 2 }, max_output_tokens: 256 },
        { id: 'broken', provider: 'down', price: { input: 1, output: 2 }, max_output_tokens: 256 },
      ],
      routing: { max_attempts: 1 },
    },
  })
  const { store } = gateway.gateway.services
  const limited = await gateway.createKey({ name: 'limited', rpm: 1 })
  const post = (key: string, body: string) =>
    fetch(`${gateway.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body,
    })
  const hello = (model: string) => JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] })
  const expectStatus = async (response: Promise<Response>, status: number) => {
    const answered = await response
    await answered.arrayBuffer()
    if (answered.status !== status) throw new Error(`expected ${status}, got ${answered.status}`)
  }
  await expectStatus(post(limited.secret, hello('mock-1')), 200)
  await gateway.settled()
  await Bun.sleep(5) // the credit lands strictly after the first answer
  await creditAccount(store.accounts, gateway.account.name, parseUsd('5'), 'top-up between requests', 'ops')
  await Bun.sleep(5)
  for (let index = 0; index < refusedByLimit; index++) await expectStatus(post(limited.secret, hello('mock-1')), 429)
  await expectStatus(post(gateway.key, '{"model": "mock-1", '), 400)
  await expectStatus(post(gateway.key, hello('gpt-typo')), 404)
  await expectStatus(post(gateway.key, hello('broken')), 503)
  await expectStatus(post(gateway.key, hello('mock-1')), 200)
  await gateway.settled()
  await gateway.gateway.services.ledger.flush()
  const adminToken = (await createAdminToken(store.adminTokens, 'reports', 'read')).secret
  return {
    gateway,
    upstream,
    adminToken,
    limitedKeyId: limited.record.id,
    refusedByLimit,
    async stop() {
      await gateway.stop()
      await upstream.stop()
    },
  }
}
