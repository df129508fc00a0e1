import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import OpenAI from 'openai'
import { parseUsd } from '../src/core/money.ts'
import { mockSpeechAudio, mockSpeechTokens } from '../src/operations/speech/providers/mock.ts'
import { audioGatewayConfig, type AudioUpstream, startAudioUpstream } from './support/audio-upstream.ts'
import { startTestGateway, type TestGateway } from './support/gateway.ts'

/**
 * Text-to-speech through the official OpenAI SDK, unmodified (`audio.speech.create`), against an OpenAI-kind loopback
 * server and the mock: the audio is the upstream's, byte for byte, streamed through before the upstream has finished;
 * the bill is the input's characters at `price.characters`, exact to the nano-dollar, plus the tokens an SSE stream
 * reports; a failed or refused request costs nothing.
 */
let upstream: AudioUpstream
let gateway: TestGateway
let client: OpenAI

const characterPrice = '15.0001' // USD per 1M characters: 15000.1 nano-dollars each, so rounding shows
const tokenPrice = { input: '2.5', output: '10.0001' }

beforeAll(async () => {
  upstream = startAudioUpstream()
  gateway = await startTestGateway({
    config: audioGatewayConfig(upstream, [
      {
        id: 'tts-openai',
        kind: 'speech',
        provider: 'oai',
        upstream_model: 'gpt-4o-mini-tts',
        price: { characters: characterPrice, ...tokenPrice },
      },
      { id: 'tts-mock', kind: 'speech', provider: 'mock', price: { characters: characterPrice, ...tokenPrice } },
    ]),
  })
  client = new OpenAI({ baseURL: gateway.baseUrl, apiKey: gateway.key, maxRetries: 0 })
})

afterAll(async () => {
  await gateway?.stop()
  await upstream?.stop()
})

/** Nano-dollars for `characters` (and reported tokens) at the test's prices, rounded up once. */
function costOf(characters: number, tokens = { input: 0, output: 0 }): number {
  const total =
    BigInt(characters) * BigInt(parseUsd(characterPrice)) +
    BigInt(tokens.input) * BigInt(parseUsd(tokenPrice.input)) +
    BigInt(tokens.output) * BigInt(parseUsd(tokenPrice.output))
  return Number((total + 999_999n) / 1_000_000n)
}

async function lastRow() {
  const [row] = await gateway.gateway.services.store.usage.listRequests({ accountId: gateway.account.id }, 1)
  return row!
}

describe.each([['tts-openai'], ['tts-mock']])('%s', (model) => {
  test('audio.speech.create: the WAV the upstream made, billed per character exactly', async () => {
    const input = 'Hello from the gateway — ünïcödé counts as one character each 🎙️.'
    const before = await gateway.settled()
    const response = await client.audio.speech.create({
      model,
      voice: 'alloy',
      input,
      response_format: 'wav',
      speed: 1.25,
      instructions: 'Calm.',
    })
    expect(response.headers.get('content-type')).toBe('audio/wav')
    expect(new Uint8Array(await response.arrayBuffer())).toEqual(mockSpeechAudio({ input, format: 'wav' }))
    const after = await gateway.settled()
    const characters = [...input].length
    expect(before.balance - after.balance).toBe(costOf(characters))
    expect(await lastRow()).toMatchObject({
      operation: 'speech',
      model,
      status: 200,
      units: characters,
      inputTokens: 0,
      outputTokens: 0,
      cost: costOf(characters),
    })
    if (model === 'tts-openai') {
      expect(upstream.calls.at(-1)!.body).toEqual({
        model: 'gpt-4o-mini-tts',
        input,
        voice: 'alloy',
        response_format: 'wav',
        speed: 1.25,
        instructions: 'Calm.',
      })
    }
  })

  test('stream_format sse: the events as the upstream wrote them, and its reported tokens billed too', async () => {
    const input = 'Stream this, please.'
    const before = await gateway.settled()
    const response = await client.audio.speech.create({ model, voice: 'nova', input, response_format: 'pcm', stream_format: 'sse' })
    expect(response.headers.get('content-type')).toStartWith('text/event-stream')
    const events = (await response.text())
      .split('\n\n')
      .filter(Boolean)
      .map((event) => JSON.parse(event.slice('data: '.length)))
    const audio = Buffer.concat(
      events.filter((event) => event.type === 'speech.audio.delta').map((event) => Buffer.from(event.audio, 'base64')),
    )
    expect(new Uint8Array(audio)).toEqual(mockSpeechAudio({ input, format: 'pcm' }))
    const tokens = mockSpeechTokens({ input })
    expect(events.at(-1)).toMatchObject({ type: 'speech.audio.done', usage: { input_tokens: tokens.input, output_tokens: tokens.output } })
    const after = await gateway.settled()
    expect(before.balance - after.balance).toBe(costOf(input.length, tokens))
    expect(await lastRow()).toMatchObject({
      operation: 'speech',
      units: input.length,
      inputTokens: tokens.input,
      outputTokens: tokens.output,
    })
  })

  test("a request the API refuses is a 400 in OpenAI's shape, and costs nothing", async () => {
    const before = await gateway.settled()
    const refused = (body: Record<string, unknown>) =>
      client.audio.speech.create({ model, voice: 'alloy', input: 'x', ...body } as never).then(
        () => undefined,
        (error) => error,
      )
    expect(await refused({ voice: undefined })).toMatchObject({ status: 400, error: { param: 'voice', type: 'invalid_request_error' } })
    expect(await refused({ speed: 9 })).toMatchObject({ status: 400, error: { param: 'speed' } })
    expect(await refused({ input: 'x'.repeat(4097) })).toMatchObject({ status: 400, error: { param: 'input' } })
    expect(await refused({ model: 'mock-1' })).toMatchObject({ status: 400, error: { code: 'wrong_model_kind' } })
    expect((await gateway.settled()).balance).toBe(before.balance)
  })
})

test('the mock refuses a format it cannot make, naming the field; unbilled', async () => {
  const before = await gateway.settled()
  const error = await client.audio.speech.create({ model: 'tts-mock', voice: 'alloy', input: 'hi', response_format: 'mp3' }).then(
    () => undefined,
    (failure) => failure,
  )
  expect(error).toMatchObject({ status: 400, error: { param: 'response_format', code: 'unsupported_by_upstream' } })
  expect((await gateway.settled()).balance).toBe(before.balance)
})

test('the audio streams through: the client has its first bytes while the upstream still holds its last chunk', async () => {
  let release!: () => void
  upstream.holdLastChunk = new Promise((resolve) => (release = resolve))
  try {
    const input = 'A sentence long enough to make several chunks of audio at twenty-four kilohertz.'
    const response = await client.audio.speech.create({ model: 'tts-openai', voice: 'alloy', input, response_format: 'wav' })
    const reader = response.body!.getReader()
    const first = await reader.read()
    expect(first.value!.byteLength).toBeGreaterThan(0)
    // Buffered whole, this read would wait for the held chunk forever (and the test would time out).
    expect(upstream.lastChunkSent).toBe(false)
    release()
    const chunks = [first.value!]
    for (let next = await reader.read(); !next.done; next = await reader.read()) chunks.push(next.value)
    expect(upstream.lastChunkSent).toBe(true)
    expect(new Uint8Array(Buffer.concat(chunks))).toEqual(mockSpeechAudio({ input, format: 'wav' }))
  } finally {
    release()
    upstream.holdLastChunk = undefined
  }
})

test('an upstream failing before any audio is retried, and a request that fails on every attempt costs nothing', async () => {
  const before = await gateway.settled()
  upstream.failNext.push(500)
  const response = await client.audio.speech.create({ model: 'tts-openai', voice: 'alloy', input: 'retry me', response_format: 'wav' })
  expect((await response.arrayBuffer()).byteLength).toBe(mockSpeechAudio({ input: 'retry me', format: 'wav' }).byteLength)
  const middle = await gateway.settled()
  expect(before.balance - middle.balance).toBe(costOf('retry me'.length))
  upstream.failNext.push(500, 500)
  const error = await client.audio.speech.create({ model: 'tts-openai', voice: 'alloy', input: 'fail me', response_format: 'wav' }).then(
    () => undefined,
    (failure) => failure,
  )
  expect(error).toMatchObject({ status: 502 })
  expect((await gateway.settled()).balance).toBe(middle.balance)
  expect(await lastRow()).toMatchObject({ operation: 'speech', cost: 0, units: 0 })
})

test('a client that leaves mid-audio pays for its characters (the upstream read them all), as a 499', async () => {
  let release!: () => void
  upstream.holdLastChunk = new Promise((resolve) => (release = resolve))
  try {
    const before = await gateway.settled()
    const input = 'Leaving before the end of this sentence, which makes several chunks.'
    const response = await client.audio.speech.create({ model: 'tts-openai', voice: 'alloy', input, response_format: 'wav' })
    const reader = response.body!.getReader()
    expect((await reader.read()).value!.byteLength).toBeGreaterThan(0)
    await reader.cancel()
    release()
    for (let waited = 0; waited < 100 && (await lastRow()).status !== 499; waited++) await Bun.sleep(20)
    expect(await lastRow()).toMatchObject({ operation: 'speech', status: 499, units: input.length, cost: costOf(input.length) })
    expect(before.balance - (await gateway.settled()).balance).toBe(costOf(input.length))
  } finally {
    release()
    upstream.holdLastChunk = undefined
  }
})

test("an upstream that cuts its audio midway: the client's body ends in an error, and its characters are billed (the upstream read them)", async () => {
  const before = await gateway.settled()
  upstream.cutAfterFirstChunk = true
  const input = 'This answer is cut off after its first chunk of audio, on purpose.'
  const response = await client.audio.speech.create({ model: 'tts-openai', voice: 'alloy', input, response_format: 'wav' })
  expect(
    await response.arrayBuffer().then(
      () => 'whole',
      () => 'cut',
    ),
  ).toBe('cut')
  for (let waited = 0; waited < 100 && (await lastRow()).units !== input.length; waited++) await Bun.sleep(20)
  expect(await lastRow()).toMatchObject({
    operation: 'speech',
    status: 503,
    errorType: 'upstream_unreachable',
    units: input.length,
    cost: costOf(input.length),
  })
  expect(before.balance - (await gateway.settled()).balance).toBe(costOf(input.length))
})
