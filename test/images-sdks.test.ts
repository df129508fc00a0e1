import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import OpenAI, { toFile } from 'openai'
import { parseUsd } from '../src/core/money.ts'
import { ceilPerMillion } from '../src/core/pricing.ts'
import { colourOf, createPng } from '../src/core/png.ts'
import { mockImageTokens } from '../src/operations/images/providers/mock.ts'
import {
  imagePrices,
  imagesConfig,
  type ImagesUpstream,
  startImagesUpstream,
  upstreamOutputTokensPerImage,
} from './support/images-upstream.ts'
import { startTestGateway, type TestGateway } from './support/gateway.ts'

/**
 * Issue 29's images through the official OpenAI SDK, unmodified: images.generate and images.edit against an
 * OpenAI-kind loopback server and the mock, priced per image (by the size and quality made) and per token (as the
 * upstream reports them). Every image is the PNG its prompt should get, and every call's spend is exact.
 */
let upstream: ImagesUpstream
let gateway: TestGateway
let client: OpenAI

beforeAll(async () => {
  upstream = startImagesUpstream()
  gateway = await startTestGateway({ config: imagesConfig(upstream) })
  client = new OpenAI({ baseURL: gateway.baseUrl, apiKey: gateway.key, maxRetries: 0 })
})

afterAll(async () => {
  await gateway?.stop()
  upstream?.stop()
})

const perImage = (key: keyof typeof imagePrices) => parseUsd(imagePrices[key])
const perToken = (input: number, output: number) => ceilPerMillion([input, parseUsd('5.0000001'), output, parseUsd('40')])

/** Run one call; check the account paid exactly `cost` and the usage row says so, in images. */
async function billed(model: string, cost: number, row: Record<string, unknown>, call: () => Promise<void>) {
  const before = await gateway.settled()
  await call()
  const after = await gateway.settled()
  expect(before.balance - after.balance).toBe(cost)
  const [usage] = await gateway.gateway.services.store.usage.listRequests({ accountId: gateway.account.id }, 1)
  expect(usage).toMatchObject({ operation: 'images', model, status: 200, cost, estimated: false, ...row })
}

/** The image an answer holds is the PNG of this size its prompt and place make. */
function expectPng(b64: string | undefined, size: [number, number], seed: string) {
  expect(Buffer.from(b64!, 'base64')).toEqual(Buffer.from(createPng(size[0], size[1], seed)))
}

describe.each([['image-openai'], ['image-mock']])('%s, priced per image', (model) => {
  test('images.generate: n images of the size and quality asked, billed at that price each', async () => {
    await billed(model, 2 * perImage('1024x1024/high'), { units: 2 }, async () => {
      const answer = await client.images.generate({ model, prompt: 'a red fox', n: 2, size: '1024x1024', quality: 'high' })
      expect(answer.data).toHaveLength(2)
      expectPng(answer.data![0]!.b64_json, [1024, 1024], 'a red fox#0')
      expectPng(answer.data![1]!.b64_json, [1024, 1024], 'a red fox#1')
      expect(answer.size).toBe('1024x1024')
    })
  })

  test('response_format url: a URL the SDK gives back (a data: URL of the bytes when the upstream sent bytes)', async () => {
    await billed(model, perImage('256x256'), { units: 1 }, async () => {
      const answer = await client.images.generate({ model, prompt: 'a tiny cat', size: '256x256', response_format: 'url' })
      const url = answer.data![0]!.url!
      expect(url.startsWith('data:image/png;base64,')).toBe(true)
      expectPng(url.slice('data:image/png;base64,'.length), [256, 256], 'a tiny cat#0')
    })
  })

  test('images.edit: the image and mask reach the upstream as a form, and the edit is billed per image', async () => {
    const image = createPng(64, 64, 'source')
    const mask = createPng(64, 64, 'mask')
    const sent = upstream.received.length
    await billed(model, perImage('1024x1024/low'), { units: 1 }, async () => {
      const answer = await client.images.edit({
        model,
        prompt: 'add a hat',
        image: await toFile(image, 'source.png', { type: 'image/png' }),
        mask: await toFile(mask, 'mask.png', { type: 'image/png' }),
        size: '1024x1024',
        quality: 'low',
      })
      expectPng(answer.data![0]!.b64_json, [1024, 1024], 'add a hat#0')
    })
    if (model === 'image-openai') {
      const received = upstream.received[sent]!
      expect(received.path).toBe('/v1/images/edits')
      expect(received.fields).toMatchObject({ model: 'gpt-image-1', prompt: 'add a hat', size: '1024x1024', quality: 'low', n: '1' })
      expect(received.files.map((file) => [file.field, file.filename, file.type])).toEqual([
        ['image', 'source.png', 'image/png'],
        ['mask', 'mask.png', 'image/png'],
      ])
      expect(Buffer.from(received.files[0]!.bytes)).toEqual(Buffer.from(image))
      expect(Buffer.from(received.files[1]!.bytes)).toEqual(Buffer.from(mask))
    }
  })
})

describe('priced per token', () => {
  test('the loopback server reports the tokens of gpt-image models: they are billed, and the answer says them', async () => {
    const prompt = 'a lighthouse at dusk'
    const output = 3 * upstreamOutputTokensPerImage
    await billed(
      'image-tokens',
      perToken(prompt.length, output),
      { units: 3, inputTokens: prompt.length, outputTokens: output },
      async () => {
        const answer = await client.images.generate({ model: 'image-tokens', prompt, n: 3, quality: 'medium' })
        expect(answer.data).toHaveLength(3)
        expect(answer.usage).toMatchObject({ input_tokens: prompt.length, output_tokens: output, total_tokens: prompt.length + output })
      },
    )
  })

  test('the mock reports its own (a token per 4096 pixels an image)', async () => {
    const prompt = 'two moons'
    const output = 2 * mockImageTokens('1536x1024')
    await billed('image-mock-tokens', perToken(Math.ceil(prompt.length / 4), output), { units: 2, outputTokens: output }, async () => {
      const answer = await client.images.generate({ model: 'image-mock-tokens', prompt, n: 2, size: '1536x1024' })
      expectPng(answer.data![1]!.b64_json, [1536, 1024], 'two moons#1')
    })
  })
})

test('the mock paints each image its own colour', () => {
  expect(colourOf('a#0')).not.toEqual(colourOf('a#1'))
})
