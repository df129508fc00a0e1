import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import OpenAI, { toFile } from 'openai'
import { parseConfig } from '../src/config/load.ts'
import { silentLogger } from '../src/core/logger.ts'
import { startGateway } from '../src/gateway.ts'
import { mockSpeechAudio } from '../src/operations/speech/providers/mock.ts'
import { audioGatewayConfig, type AudioUpstream, startAudioUpstream } from './support/audio-upstream.ts'
import { startTestGateway, type TestGateway } from './support/gateway.ts'

/**
 * What governs chat governs speech and transcription: the key's model list, its limits and budget, the hold,
 * fallbacks to a model of the same kind, the circuit breaker; a model serves only its own kind of call; refusals come
 * in OpenAI's shape and cost nothing; /v1/models tells the kinds apart; a config that cannot serve them never starts.
 */
let upstream: AudioUpstream
let gateway: TestGateway

const wav = readFileSync('test/fixtures/audio/wav-pcm16.wav')

beforeAll(async () => {
  upstream = startAudioUpstream()
  const config = audioGatewayConfig(upstream, [
    { id: 'tts', kind: 'speech', provider: 'mock', price: { characters: 15 } },
    { id: 'tts-flaky', kind: 'speech', provider: 'oai', fallbacks: ['tts'], price: { characters: 30 } },
    { id: 'stt', kind: 'transcription', provider: 'mock', price: { audio_minute: 0.006 } },
    { id: 'stt-dear', kind: 'transcription', provider: 'mock', price: { audio_minute: 600 } },
  ])
  gateway = await startTestGateway({
    // Bun's body limit (from tasks.max_file_bytes) above the audio limit, so the gateway's own refusal is what answers.
    config: {
      ...config,
      tasks: { max_file_bytes: 512 * 1024 * 1024 },
      routing: { ...config.routing, min_requests: 2, failure_ratio: 0.5, cooldown_s: 60 },
    },
  })
})

afterAll(async () => {
  await gateway?.stop()
  await upstream?.stop()
})

const openAi = (key = gateway.key) => new OpenAI({ baseURL: gateway.baseUrl, apiKey: key, maxRetries: 0 })
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error) => error as { status: number; message: string; code?: string },
  )
const speak = (client: OpenAI, model = 'tts', input = 'hello') =>
  client.audio.speech.create({ model, voice: 'alloy', input, response_format: 'wav' }).then((response) => response.arrayBuffer())
const transcribe = async (client: OpenAI, model = 'stt') => client.audio.transcriptions.create({ model, file: await toFile(wav, 'a.wav') })

describe('a model serves its own kind of call', () => {
  test("speech, transcription and chat models refuse each other's requests: 400 naming the model, unbilled", async () => {
    const before = await gateway.settled()
    expect(await failure(speak(openAi(), 'stt'))).toMatchObject({ status: 400, code: 'wrong_model_kind' })
    const chat = await failure(openAi().chat.completions.create({ model: 'tts', messages: [{ role: 'user', content: 'hi' }] }))
    expect(chat!.message).toContain("The model 'tts' is a speech model (kind: speech): it cannot serve chat requests.")
    const transcription = await failure(transcribe(openAi(), 'mock-1'))
    expect(transcription).toMatchObject({ status: 400, code: 'wrong_model_kind' })
    expect(transcription!.message).toContain('it cannot serve transcription requests')
    expect((await gateway.settled()).balance).toBe(before.balance)
    const rows = await gateway.gateway.services.store.usage.listRequests({ accountId: gateway.account.id }, 3)
    expect(rows.map((row) => [row.operation, row.status, row.cost])).toEqual([
      ['transcription', 400, 0],
      ['chat', 400, 0],
      ['speech', 400, 0],
    ])
  })
})

describe("the key's model list, limits and budget", () => {
  test("a key without the model gets 403 in OpenAI's shape, and does not see it listed", async () => {
    const { secret } = await gateway.createKey({ models: ['tts'] })
    expect(await failure(transcribe(openAi(secret)))).toMatchObject({ status: 403, code: 'model_not_permitted' })
    expect((await speak(openAi(secret))).byteLength).toBe(mockSpeechAudio({ input: 'hello', format: 'wav' }).byteLength)
    const listed = (await (await fetch(`${gateway.baseUrl}/models`, { headers: { authorization: `Bearer ${secret}` } })).json()) as {
      data: { id: string; type: string }[]
    }
    expect(listed.data.map((model) => [model.id, model.type])).toEqual([['tts', 'speech']])
  })

  test('rpm counts speech and transcription like any request', async () => {
    const { secret } = await gateway.createKey({ rpm: 2 })
    await speak(openAi(secret))
    await transcribe(openAi(secret))
    expect(await failure(speak(openAi(secret)))).toMatchObject({ status: 429 })
  })

  test("the hold covers the audio's seconds: a balance too small for them is refused before anything is sent", async () => {
    const account = await gateway.createAccount('almost-empty', '1') // 2 s at $600 a minute is $20
    const { secret } = await gateway.createKey({ accountId: account.id })
    expect(await failure(transcribe(openAi(secret), 'stt-dear'))).toMatchObject({ status: 403, code: 'insufficient_balance' })
    expect((await transcribe(openAi(secret))).text).toBe('1.50 seconds of wav')
  })

  test("a key's budget counts what speech costs", async () => {
    const { secret } = await gateway.createKey({ budget: 100_000 }) // nano-dollars: 6 characters at $15 a million is 90,000
    await speak(openAi(secret), 'tts', 'sixsix')
    expect(await failure(speak(openAi(secret), 'tts', 'sixsix'))).toMatchObject({ status: 403 })
  })
})

test('an audio upload declared larger than 200 MiB is a 400 naming the file before its body is read, unbilled', async () => {
  const before = await gateway.settled()
  const body = new ReadableStream<Uint8Array>({ start: (controller) => controller.enqueue(new Uint8Array(1024)) }) // and never more
  const response = await fetch(`${gateway.baseUrl}/audio/transcriptions`, {
    method: 'POST',
    body,
    headers: {
      authorization: `Bearer ${gateway.key}`,
      'content-type': 'multipart/form-data; boundary=XYZ',
      'content-length': String(300 * 1024 * 1024),
    },
  })
  expect(response.status).toBe(400)
  expect(response.headers.get('connection')).toBe('close')
  expect(await response.json()).toMatchObject({
    error: { param: 'file', code: 'file_too_large', message: expect.stringContaining('200 MiB') },
  })
  expect((await gateway.settled()).balance).toBe(before.balance)
})

test('an audio file sent without a declared length is cut at 200 MiB with the same 400, its spooled part removed', async () => {
  const head = new TextEncoder().encode(
    '--XYZ\r\nContent-Disposition: form-data; name="model"\r\n\r\nstt\r\n--XYZ\r\nContent-Disposition: form-data; name="file"; filename="huge.wav"\r\n\r\n',
  )
  const chunk = new Uint8Array(1024 * 1024)
  let sent = -1
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent === -1) controller.enqueue(head)
      else if (sent < 201) controller.enqueue(chunk)
      else controller.close()
      sent++
    },
  })
  const response = await fetch(`${gateway.baseUrl}/audio/transcriptions`, {
    method: 'POST',
    body,
    headers: { authorization: `Bearer ${gateway.key}`, 'content-type': 'multipart/form-data; boundary=XYZ' },
  })
  expect(response.status).toBe(400)
  expect(await response.json()).toMatchObject({ error: { param: 'file', code: 'file_too_large' } })
  expect(readdirSync(tmpdir()).filter((name) => name.startsWith('tollgate-audio-upload-'))).toEqual([])
}, 30_000)

describe('routing', () => {
  test('a failing route falls back to a model of the same kind, billed at its price; then the breaker opens', async () => {
    const before = await gateway.settled()
    upstream.failNext.push(500, 500, 500, 500)
    expect((await speak(openAi(), 'tts-flaky', 'fallback')).byteLength).toBe(
      mockSpeechAudio({ input: 'fallback', format: 'wav' }).byteLength,
    )
    expect(before.balance - (await gateway.settled()).balance).toBe(8 * 15_000) // the fallback's $15 a million, not $30
    await speak(openAi(), 'tts-flaky', 'again') // two failures on the route: its circuit opens
    const calls = upstream.calls.length
    await speak(openAi(), 'tts-flaky', 'skipped')
    expect(upstream.calls.length).toBe(calls) // the open route is skipped, straight to the fallback
    upstream.failNext.length = 0
  })
})

describe('a config that cannot serve its models does not start', () => {
  const config = (model: Record<string, unknown>) => ({
    providers: [{ name: 'mock', type: 'mock' }],
    models: [{ id: 'chat', provider: 'mock', price: { input: 1, output: 1 } }, model],
  })

  test('speech and transcription on an Anthropic provider are refused, naming them', async () => {
    for (const [kind, price, operation] of [
      ['speech', { characters: 1 }, 'speech'],
      ['transcription', { audio_minute: 1 }, 'transcription'],
    ] as const) {
      const parsed = parseConfig({
        listen: { host: '127.0.0.1', port: 0 },
        database: `sqlite:${join(mkdtempSync(join(tmpdir(), 'tollgate-audio-rules-')), 'never.db')}`,
        providers: [{ name: 'claude', type: 'anthropic', api_key: 'k' }],
        models: [{ id: 'voice', kind, provider: 'claude', price }],
      })
      await expect(startGateway(parsed, silentLogger)).rejects.toThrow(
        `the model "voice" is of kind ${kind}, but its provider "claude" is of type anthropic, which serves no ${operation}`,
      )
    }
  })

  test('each kind takes its own prices and settings', () => {
    expect(() => parseConfig(config({ id: 's', kind: 'speech', provider: 'mock', price: { input: 1 } }))).toThrow(
      'models[1].price.characters: is required',
    )
    expect(() =>
      parseConfig(config({ id: 't', kind: 'transcription', provider: 'mock', price: { characters: 1, audio_minute: 1 } })),
    ).toThrow(
      'models[1].price.characters: a model of kind transcription has no such price (expected one of: audio_minute, input, output, batch)',
    )
    expect(() =>
      parseConfig(config({ id: 's', kind: 'speech', provider: 'mock', price: { characters: 1 }, max_audio_seconds: 60 })),
    ).toThrow('models[1].max_audio_seconds: unknown setting')
    expect(() => parseConfig(config({ id: 'c', provider: 'mock', price: { input: 1, output: 1, audio_minute: 1 } }))).toThrow(
      'models[1].price.audio_minute: a model of kind chat has no such price',
    )
    expect(() =>
      parseConfig(config({ id: 't', kind: 'transcription', provider: 'mock', price: { audio_minute: 1 }, fallbacks: ['chat'] })),
    ).toThrow("a fallback must be of its model's kind")
    expect(
      parseConfig(config({ id: 't', kind: 'transcription', provider: 'mock', price: { audio_minute: '0.006' }, max_audio_seconds: 1500 }))
        .models[1],
    ).toMatchObject({
      kind: 'transcription',
      price: { audioMinute: 6_000_000, input: 0, output: 0 },
      maxAudioSeconds: 1500,
    })
  })
})
