import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { parseUsd } from '../src/core/money.ts'
import { ceilPerMillion } from '../src/core/pricing.ts'
import { estimateTokens } from '../src/core/estimate.ts'
import { imagesConfig, type ImagesUpstream, startImagesUpstream } from './support/images-upstream.ts'
import { rerankConfig, type RerankUpstream, startRerankUpstream } from './support/rerank-upstream.ts'
import { startTestGateway, type TestGateway } from './support/gateway.ts'

/**
 * The ways an images or rerank request ends that the SDK tests do not show: the client leaving before its answer
 * (it pays for its input, as a chat client pays for its prompt — no image reached it, so no image is billed), and a
 * model priced per token whose upstream reports no tokens (billed the hold's worst case for images, the tokenizer's
 * count of every pair for rerank, flagged estimated).
 */
let images: ImagesUpstream
let rerank: RerankUpstream
let gateway: TestGateway

beforeAll(async () => {
  images = startImagesUpstream()
  rerank = startRerankUpstream()
  const imageModels = imagesConfig(images)
  const rerankModels = rerankConfig(rerank)
  gateway = await startTestGateway({
    config: {
      providers: [...imageModels.providers, ...rerankModels.providers.slice(1)],
      models: [...imageModels.models, ...rerankModels.models.slice(1)],
    },
  })
})

afterAll(async () => {
  await gateway?.stop()
  images?.stop()
  await rerank?.stop()
})

/** Send `body` to `path` and leave after 300 ms, while the upstream still works on it; the request's row once settled. */
async function leaveEarly(path: string, body: Record<string, unknown>) {
  const left = fetch(`${gateway.baseUrl}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${gateway.key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(300),
  })
  await expect(left).rejects.toThrow()
  await Bun.sleep(300)
  const before = await gateway.settled()
  const [row] = await gateway.gateway.services.store.usage.listRequests({ accountId: gateway.account.id }, 1)
  return { row, balance: before.balance }
}

describe('a client that leaves before its answer', () => {
  test('images priced per image: nothing (no image reached it); per token: its prompt', async () => {
    images.delayMs = 1200
    try {
      const start = (await gateway.settled()).balance
      const perImage = await leaveEarly('/images/generations', { model: 'image-openai', prompt: 'slow', size: '256x256' })
      expect(perImage.row).toMatchObject({
        operation: 'images',
        model: 'image-openai',
        status: 499,
        errorType: 'client_closed',
        units: 0,
        cost: 0,
      })
      expect(perImage.balance).toBe(start)
      const prompt = 'a slow painting of the sea'
      const perToken = await leaveEarly('/images/generations', { model: 'image-tokens', prompt })
      const tokens = Math.ceil(prompt.length / 4)
      const cost = ceilPerMillion([tokens, parseUsd('5.0000001')])
      expect(perToken.row).toMatchObject({
        operation: 'images',
        status: 499,
        inputTokens: tokens,
        outputTokens: 0,
        units: 0,
        cost,
        estimated: true,
      })
      expect(start - perToken.balance).toBe(cost)
    } finally {
      images.delayMs = 0
    }
  })

  test('rerank: its query-document pairs (per token) or its search units', async () => {
    rerank.delayMs = 1200
    try {
      const body = { query: 'where', documents: ['here', 'there'] }
      const tokens = 2 * (await estimateTokens('where')) + (await estimateTokens('here')) + (await estimateTokens('there'))
      const perToken = await leaveEarly('/rerank', { model: 'rerank-vllm', ...body })
      expect(perToken.row).toMatchObject({
        operation: 'rerank',
        status: 499,
        inputTokens: tokens,
        units: 1,
        cost: ceilPerMillion([tokens, parseUsd('0.0201')]),
        estimated: true,
      })
      const perUnit = await leaveEarly('/rerank', { model: 'rerank-units', ...body })
      expect(perUnit.row).toMatchObject({ operation: 'rerank', status: 499, units: 1, cost: parseUsd('0.002') })
    } finally {
      rerank.delayMs = 0
    }
  })
})

test("an image model priced per token whose upstream reports none is billed its hold's output, flagged estimated", async () => {
  images.noUsage = true
  try {
    const before = await gateway.settled()
    const prompt = 'no report'
    const answer = await fetch(`${gateway.baseUrl}/images/generations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gateway.key}` },
      body: JSON.stringify({ model: 'image-tokens', prompt, n: 2 }),
    })
    expect(answer.status).toBe(200)
    expect(((await answer.json()) as { usage?: unknown }).usage).toBeUndefined()
    const after = await gateway.settled()
    const input = Math.ceil(prompt.length / 4)
    const cost = ceilPerMillion([input, parseUsd('5.0000001'), 2 * 6240, parseUsd('40')])
    expect(before.balance - after.balance).toBe(cost)
    const [row] = await gateway.gateway.services.store.usage.listRequests({ accountId: gateway.account.id }, 1)
    expect(row).toMatchObject({
      operation: 'images',
      status: 200,
      units: 2,
      inputTokens: input,
      outputTokens: 2 * 6240,
      cost,
      estimated: true,
    })
  } finally {
    images.noUsage = false
  }
})

describe("a key's budget counts what images and rerank cost", () => {
  const post = (key: string, path: string, body: Record<string, unknown>) =>
    fetch(`${gateway.baseUrl}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}` },
      body: JSON.stringify(body),
    })

  test('images: a budget of two low images takes two, and refuses a third', async () => {
    const { secret } = await gateway.createKey({ budget: 2 * parseUsd('0.011') })
    const low = { model: 'image-mock', prompt: 'x', size: '1024x1024', quality: 'low' }
    for (let index = 0; index < 2; index++) expect((await post(secret, '/images/generations', low)).status).toBe(200)
    const refused = await post(secret, '/images/generations', low)
    expect(refused.status).toBe(403)
  })

  test('rerank: a budget of one search unit takes one request, and refuses the next', async () => {
    const { secret } = await gateway.createKey({ budget: parseUsd('0.002') })
    const body = { model: 'rerank-units', query: 'q', documents: ['a', 'b'] }
    expect((await post(secret, '/rerank', body)).status).toBe(200)
    expect((await post(secret, '/rerank', body)).status).toBe(403)
  })
})
