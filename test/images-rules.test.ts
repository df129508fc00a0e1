import { afterAll, afterEach, beforeAll, describe, expect, test } from 'bun:test'
import OpenAI, { toFile } from 'openai'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseConfig } from '../src/config/load.ts'
import { silentLogger } from '../src/core/logger.ts'
import { parseUsd } from '../src/core/money.ts'
import { createPng } from '../src/core/png.ts'
import { startGateway } from '../src/gateway.ts'
import { imagePrices, imagesConfig, type ImagesUpstream, startImagesUpstream } from './support/images-upstream.ts'
import { startTestGateway, type TestGateway } from './support/gateway.ts'

/**
 * What governs every operation governs images: a bad request (a size or quality the model has no price for, `n` over
 * its limit, a form that is not one, a file that is not an image) is a 400 in OpenAI's shape naming the problem,
 * recorded as an images row that costs nothing, and nothing reaches the upstream; an upstream that fails costs
 * nothing, a fallback serves instead; the key's model list, the hold and /v1/models apply; the config is checked.
 */
let upstream: ImagesUpstream
let gateway: TestGateway

beforeAll(async () => {
  upstream = startImagesUpstream()
  const config = imagesConfig(upstream)
  config.models.push({
    id: 'image-flaky',
    kind: 'image',
    provider: 'oai',
    upstream_model: 'dall-e-2',
    price: { images: { '256x256': '0.016' } },
    fallbacks: ['image-mock'],
  } as never)
  // Failures here are the test's own: the breaker is tested on a gateway of its own (below).
  gateway = await startTestGateway({ config: { ...config, routing: { min_requests: 1000, backoff_ms: 0 } }, balanceUsd: '10' })
})

afterEach(() => {
  upstream.failNext.length = 0
})

afterAll(async () => {
  await gateway?.stop()
  upstream?.stop()
})

const openAi = (key = gateway.key) => new OpenAI({ baseURL: gateway.baseUrl, apiKey: key, maxRetries: 0 })
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error) => error as { status: number; message: string; code?: string; param?: string },
  )

/** The call is refused as asked, costs nothing, reaches no upstream, and its row says images, status and cost 0. */
async function refusedUnbilled(call: () => Promise<unknown>, expected: { status: number; param?: string; code?: string; message: string }) {
  const before = await gateway.settled()
  const sent = upstream.received.length
  const error = await failure(call())
  expect(error).toMatchObject({
    status: expected.status,
    ...(expected.param ? { param: expected.param } : {}),
    ...(expected.code ? { code: expected.code } : {}),
  })
  expect(error!.message).toContain(expected.message)
  const after = await gateway.settled()
  expect(after.balance).toBe(before.balance)
  expect(upstream.received.length).toBe(sent)
  const [row] = await gateway.gateway.services.store.usage.listRequests({ accountId: gateway.account.id }, 1)
  expect(row).toMatchObject({ operation: 'images', status: expected.status, cost: 0 })
}

describe('bad input is a 400 naming the problem, and costs nothing', () => {
  test('a size the model has no price for', async () => {
    await refusedUnbilled(() => openAi().images.generate({ model: 'image-openai', prompt: 'x', size: '1792x1024' }), {
      status: 400,
      param: 'size',
      message: "The model 'image-openai' has no price for size 1792x1024",
    })
  })

  test('a quality the model has no price for', async () => {
    await refusedUnbilled(() => openAi().images.generate({ model: 'image-mock', prompt: 'x', size: '1536x1024', quality: 'low' }), {
      status: 400,
      param: 'quality',
      message: 'has no price for size 1536x1024 and quality low',
    })
  })

  test("n above the model's limit, and above OpenAI's", async () => {
    await refusedUnbilled(() => openAi().images.generate({ model: 'image-openai', prompt: 'x', n: 5, size: '256x256' }), {
      status: 400,
      param: 'n',
      message: "the model 'image-openai' makes at most 4 images a request, got 5",
    })
    await refusedUnbilled(() => openAi().images.generate({ model: 'image-mock', prompt: 'x', n: 11 }), {
      status: 400,
      param: 'n',
      message: 'it must be between 1 and 10',
    })
  })

  test('missing and malformed fields', async () => {
    await refusedUnbilled(() => openAi().images.generate({ model: 'image-mock', prompt: '' }), {
      status: 400,
      param: 'prompt',
      message: 'cannot be empty',
    })
    await refusedUnbilled(() => openAi().images.generate({ model: 'image-mock', prompt: 'x', size: 'big' as never }), {
      status: 400,
      param: 'size',
      message: 'expected WIDTHxHEIGHT',
    })
    await refusedUnbilled(() => openAi().images.generate({ model: 'image-mock', prompt: 'x', response_format: 'png' as never }), {
      status: 400,
      param: 'response_format',
      message: 'expected one of url, b64_json',
    })
  })

  test('a corrupted multipart body, a form without an image, and a file that is not an image', async () => {
    const post = (body: BodyInit, contentType: string) =>
      fetch(`${gateway.baseUrl}/images/edits`, {
        method: 'POST',
        body,
        headers: { authorization: `Bearer ${gateway.key}`, 'content-type': contentType },
      }).then(async (response) => {
        const json = (await response.json()) as { error: { message: string; param?: string } }
        throw Object.assign(new Error(json.error.message), { status: response.status, param: json.error.param })
      })
    const cut =
      '--b\r\nContent-Disposition: form-data; name="model"\r\n\r\nimage-mock\r\n--b\r\nContent-Disposition: form-data; name="image"; filename="a.png"\r\n\r\n\x89PNG'
    await refusedUnbilled(() => post(cut, 'multipart/form-data; boundary=b'), { status: 400, message: 'ended before its closing boundary' })
    await refusedUnbilled(() => post('{"model":"image-mock"}', 'application/json'), {
      status: 400,
      message: 'Expected a multipart/form-data body',
    })
    await refusedUnbilled(() => openAi().images.edit({ model: 'image-openai', prompt: 'x', image: [] as never }), {
      status: 400,
      param: 'image',
      message: "Missing required parameter: 'image'",
    })
    await refusedUnbilled(
      () =>
        openAi().images.edit({ model: 'image-openai', prompt: 'x', image: new File(['not a picture'], 'a.png', { type: 'image/png' }) }),
      {
        status: 400,
        param: 'image',
        message: "The file in 'image' is not a PNG, JPEG or WebP image.",
      },
    )
  })

  test('a chat model refuses images, and an image model chat', async () => {
    await refusedUnbilled(() => openAi().images.generate({ model: 'mock-1', prompt: 'x' }), {
      status: 400,
      code: 'wrong_model_kind',
      message: "The model 'mock-1' is a chat model (kind: chat): it cannot serve images requests.",
    })
    const chat = await failure(openAi().chat.completions.create({ model: 'image-mock', messages: [{ role: 'user', content: 'hi' }] }))
    expect(chat).toMatchObject({ status: 400, code: 'wrong_model_kind' })
    expect(chat!.message).toContain("'image-mock' is an image model (kind: image)")
  })
})

describe('failures cost nothing; fallbacks and the breaker serve', () => {
  test('an upstream failure is retried, then falls back to the next model, billed at its price', async () => {
    upstream.failNext.push(500, 503, 500)
    const before = await gateway.settled()
    const answer = await openAi().images.generate({ model: 'image-flaky', prompt: 'fallback', size: '256x256' })
    expect(answer.data).toHaveLength(1)
    const after = await gateway.settled()
    expect(before.balance - after.balance).toBe(parseUsd(imagePrices['256x256']))
    const [row] = await gateway.gateway.services.store.usage.listRequests({ accountId: gateway.account.id }, 1)
    expect(row).toMatchObject({ operation: 'images', model: 'image-mock', status: 200, units: 1 })
  })

  test('an upstream that fails every attempt costs nothing: 5xx in OpenAI shape', async () => {
    upstream.failNext.push(500, 500, 500)
    const before = await gateway.settled()
    const error = await failure(openAi().images.generate({ model: 'image-openai', prompt: 'x', size: '256x256' }))
    expect(error!.status).toBeGreaterThanOrEqual(500)
    expect((await gateway.settled()).balance).toBe(before.balance)
    const [row] = await gateway.gateway.services.store.usage.listRequests({ accountId: gateway.account.id }, 1)
    expect(row).toMatchObject({ operation: 'images', status: error!.status, cost: 0 })
  })

  test('the breaker: a route that keeps failing is skipped while it cools down, and the request costs nothing', async () => {
    const own = await startTestGateway({
      config: { ...imagesConfig(upstream), routing: { min_requests: 2, cooldown_s: 60, max_attempts: 1 } },
    })
    try {
      upstream.failNext.push(500, 500)
      const client = new OpenAI({ baseURL: own.baseUrl, apiKey: own.key, maxRetries: 0 })
      for (let index = 0; index < 2; index++)
        expect(await failure(client.images.generate({ model: 'image-openai', prompt: 'x', size: '256x256' }))).toMatchObject({
          status: 502,
        })
      const sent = upstream.received.length
      const cooling = await failure(client.images.generate({ model: 'image-openai', prompt: 'x', size: '256x256' }))
      expect(cooling).toMatchObject({ status: 503, code: 'no_healthy_route' })
      expect(upstream.received.length).toBe(sent)
      const before = await own.settled()
      expect(before.balance).toBe(parseUsd('100'))
    } finally {
      await own.stop()
    }
  })

  test('an edit retried after a failure sends its files again, whole', async () => {
    upstream.failNext.push(502)
    const image = createPng(32, 32, 'retry')
    const sent = upstream.received.length
    await openAi().images.edit({
      model: 'image-openai',
      prompt: 'again',
      image: await toFile(image, 'retry.png', { type: 'image/png' }),
      size: '256x256',
    })
    const attempts = upstream.received.slice(sent)
    expect(attempts).toHaveLength(2)
    for (const attempt of attempts) expect(Buffer.from(attempt.files[0]!.bytes)).toEqual(Buffer.from(image))
  })
})

describe('URLs', () => {
  test('an upstream that answers with URLs (dall-e) has them passed on; one that sends URLs where bytes were asked fails, costing nothing', async () => {
    upstream.urls = true
    try {
      const answer = await openAi().images.generate({ model: 'image-openai', prompt: 'x', size: '256x256', response_format: 'url' })
      expect(answer.data![0]!.url).toBe('https://images.example/0.png')
      const before = await gateway.settled()
      const error = await failure(
        openAi().images.generate({ model: 'image-openai', prompt: 'x', size: '256x256', response_format: 'b64_json' }),
      )
      expect(error).toMatchObject({ status: 502, code: 'upstream_malformed' })
      expect((await gateway.settled()).balance).toBe(before.balance)
    } finally {
      upstream.urls = false
    }
  })
})

describe('keys, holds and the model list', () => {
  test('a key without the image model gets 403; its list shows only its own models, with their type', async () => {
    const { secret } = await gateway.createKey({ models: ['mock-1', 'image-mock'] })
    expect(await failure(openAi(secret).images.generate({ model: 'image-openai', prompt: 'x', size: '256x256' }))).toMatchObject({
      status: 403,
      code: 'model_not_permitted',
    })
    const listed = (await (await fetch(`${gateway.baseUrl}/models`, { headers: { authorization: `Bearer ${secret}` } })).json()) as {
      data: { id: string; type: string }[]
    }
    expect(listed.data.map((model) => [model.id, model.type])).toEqual([
      ['mock-1', 'chat'],
      ['image-mock', 'image'],
    ])
  })

  test('the hold is n × the dearest matching price: a balance short of it is refused before anything is sent', async () => {
    // 2 images of any quality at 1024x1024: held at 2 × 0.167 (high), though a low one would cost 0.011.
    const account = await gateway.createAccount('one-image', '0.3')
    const { secret } = await gateway.createKey({ accountId: account.id })
    const sent = upstream.received.length
    const refused = await failure(openAi(secret).images.generate({ model: 'image-openai', prompt: 'x', n: 2, size: '1024x1024' }))
    expect(refused).toMatchObject({ status: 403, code: 'insufficient_balance' })
    expect(upstream.received.length).toBe(sent)
    await openAi(secret).images.generate({ model: 'image-openai', prompt: 'x', n: 1, size: '1024x1024' })
  })

  test('rpm counts image requests like any other', async () => {
    const { secret } = await gateway.createKey({ rpm: 1 })
    await openAi(secret).images.generate({ model: 'image-mock', prompt: 'one', size: '256x256' })
    expect(await failure(openAi(secret).images.generate({ model: 'image-mock', prompt: 'two', size: '256x256' }))).toMatchObject({
      status: 429,
    })
  })
})

describe('the config', () => {
  const config = (model: Record<string, unknown>) => ({
    providers: [{ name: 'mock', type: 'mock' }],
    models: [{ id: 'chat', provider: 'mock', price: { input: 1, output: 1 } }, model],
  })

  test('an image model is priced per image or per token, not both and not neither', () => {
    expect(() => parseConfig(config({ id: 'i', kind: 'image', provider: 'mock', price: {} }))).toThrow(
      'models[1].price.images: is required',
    )
    expect(() =>
      parseConfig(config({ id: 'i', kind: 'image', provider: 'mock', price: { images: { '1024x1024': 0.04 }, input: 5, output: 40 } })),
    ).toThrow('not both')
    expect(() => parseConfig(config({ id: 'i', kind: 'image', provider: 'mock', price: { input: 5, output: 40 } }))).toThrow(
      'models[1].max_output_tokens: is required of an image model priced per token',
    )
    expect(() => parseConfig(config({ id: 'i', kind: 'image', provider: 'mock', price: { images: { 'big/low': 0.04 } } }))).toThrow(
      'models[1].price.images',
    )
    expect(() => parseConfig(config({ id: 'c', provider: 'mock', price: { input: 1, output: 1, images: { '1024x1024': 1 } } }))).toThrow(
      'models[1].price.images: a model of kind chat has no such price',
    )
    expect(() => parseConfig(config({ id: 'c', provider: 'mock', price: { input: 1, output: 1 }, max_images: 2 }))).toThrow(
      'models[1].max_images: unknown setting',
    )
    expect(
      parseConfig(config({ id: 'i', kind: 'image', provider: 'mock', price: { images: { '1024x1024/low': '0.011' } }, max_images: 2 }))
        .models[1],
    ).toMatchObject({
      kind: 'image',
      maxImages: 2,
      price: { images: { '1024x1024/low': 11_000_000 } },
    })
  })

  test('an image model on an Anthropic provider is refused at start, naming it', async () => {
    const document = {
      listen: { host: '127.0.0.1', port: 0 },
      database: `sqlite:${join(mkdtempSync(join(tmpdir(), 'tollgate-images-')), 'never.db')}`,
      providers: [{ name: 'claude', type: 'anthropic', api_key: 'k' }],
      models: [{ id: 'claude-draw', kind: 'image', provider: 'claude', price: { images: { '1024x1024': 1 } } }],
    }
    await expect(startGateway(parseConfig(document), silentLogger)).rejects.toThrow('which serves no images')
  })
})
