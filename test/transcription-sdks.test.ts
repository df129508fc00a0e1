import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { readdirSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import OpenAI, { toFile } from 'openai'
import { readAudioDuration } from '../src/core/audio-duration/index.ts'
import { parseUsd } from '../src/core/money.ts'
import {
  audioGatewayConfig,
  type AudioUpstream,
  startAudioUpstream,
  streamedTranscriptionTokens,
  transcriptOf,
} from './support/audio-upstream.ts'
import { startTestGateway, type TestGateway } from './support/gateway.ts'

/**
 * Speech-to-text through the official OpenAI SDK, unmodified (`audio.transcriptions.create`,
 * `audio.translations.create`), against an OpenAI-kind loopback server and the mock: the file reaches the upstream
 * whole with the client's fields, every response_format comes back as the upstream wrote it, and each call is billed
 * its audio's whole seconds (from the container's header) at `price.audio_minute`, plus reported tokens, exactly. A
 * file that is not audio, a corrupted form and a failing upstream cost nothing, and no spooled upload is left behind.
 */
let upstream: AudioUpstream
let gateway: TestGateway
let client: OpenAI

const minutePrice = '0.006001' // USD a minute: 100016.66… nano-dollars a second, so rounding shows
const tokenPrice = { input: '2.5', output: '10' }
const fixture = (name: string) => readFileSync(`test/fixtures/audio/${name}`)
const wav = fixture('wav-pcm16.wav') // 1.5 s: billed as 2

beforeAll(async () => {
  upstream = startAudioUpstream()
  gateway = await startTestGateway({
    config: audioGatewayConfig(upstream, [
      {
        id: 'stt-openai',
        kind: 'transcription',
        provider: 'oai',
        upstream_model: 'gpt-4o-transcribe',
        price: { audio_minute: minutePrice, ...tokenPrice },
      },
      { id: 'stt-mock', kind: 'transcription', provider: 'mock', price: { audio_minute: minutePrice } },
      { id: 'stt-any', kind: 'transcription', provider: 'oai', max_audio_seconds: 600, price: { audio_minute: minutePrice } },
    ]),
  })
  client = new OpenAI({ baseURL: gateway.baseUrl, apiKey: gateway.key, maxRetries: 0 })
})

afterAll(async () => {
  await gateway?.stop()
  await upstream?.stop()
})

/** Nano-dollars for `seconds` of audio and reported tokens at the test's prices, rounded up once. */
function costOf(seconds: number, tokens = { input: 0, output: 0 }): number {
  const total =
    BigInt(seconds) * BigInt(parseUsd(minutePrice)) * 1_000_000n +
    60n * (BigInt(tokens.input) * BigInt(parseUsd(tokenPrice.input)) + BigInt(tokens.output) * BigInt(parseUsd(tokenPrice.output)))
  return Number((total + 59_999_999n) / 60_000_000n)
}

/** The whole seconds a fixture is billed for. */
function secondsOf(bytes: Uint8Array): number {
  const measured = readAudioDuration({ size: bytes.length, ranges: [{ offset: 0, bytes }] })
  if (measured.kind !== 'duration') throw new Error(`fixture not measured: ${JSON.stringify(measured)}`)
  return Math.ceil(measured.seconds)
}

async function billed(
  expected: { seconds: number; tokens?: { input: number; output: number }; model: string; estimated?: boolean },
  call: () => Promise<void>,
) {
  const before = await gateway.settled()
  await call()
  const after = await gateway.settled()
  const cost = costOf(expected.seconds, expected.tokens)
  expect(before.balance - after.balance).toBe(cost)
  const [row] = await gateway.gateway.services.store.usage.listRequests({ accountId: gateway.account.id }, 1)
  expect(row).toMatchObject({
    operation: 'transcription',
    model: expected.model,
    status: 200,
    units: expected.seconds,
    cost,
    estimated: expected.estimated ?? false,
    inputTokens: expected.tokens?.input ?? 0,
    outputTokens: expected.tokens?.output ?? 0,
  })
}

const spooled = () => readdirSync(tmpdir()).filter((name) => name.startsWith('tollgate-audio-upload-'))

test('a 1.5 s WAV is billed 2 seconds at the minute price, exactly', async () => {
  expect(secondsOf(wav)).toBe(2)
  await billed({ seconds: 2, model: 'stt-mock' }, async () => {
    const answer = await client.audio.transcriptions.create({ model: 'stt-mock', file: await toFile(wav, 'speech.wav') })
    expect(answer.text).toBe('1.50 seconds of wav')
  })
})

describe.each([['mp3-cbr.mp3'], ['vorbis.ogg'], ['flac.flac'], ['m4a-moov-end.m4a'], ['webm-opus.webm']])('%s', (name) => {
  const bytes = fixture(name)
  test('transcriptions.create toward the OpenAI-kind server: the file and fields reach it whole; seconds billed', async () => {
    await billed({ seconds: secondsOf(bytes), model: 'stt-openai' }, async () => {
      const answer = await client.audio.transcriptions.create({
        model: 'stt-openai',
        file: await toFile(bytes, name),
        language: 'en',
        prompt: 'A tone.',
        temperature: 0.2,
      })
      expect(answer.text).toBe(transcriptOf(name, bytes.length))
    })
    const call = upstream.calls.at(-1)!
    expect(call.path).toBe('/v1/audio/transcriptions')
    expect(call.file).toMatchObject({ name, size: bytes.length, head: new Uint8Array(bytes.subarray(0, 16)) })
    expect(call.fields).toMatchObject({ model: ['gpt-4o-transcribe'], language: ['en'], prompt: ['A tone.'], temperature: ['0.2'] })
  })
})

describe.each([['stt-openai'], ['stt-mock']])('%s', (model) => {
  test('text, srt and vtt come back as text; verbose_json with word and segment timestamps', async () => {
    const text = await client.audio.transcriptions.create({ model, file: await toFile(wav, 'a.wav'), response_format: 'text' })
    expect(typeof text).toBe('string')
    const srt = await client.audio.transcriptions.create({ model, file: await toFile(wav, 'a.wav'), response_format: 'srt' })
    expect(srt).toStartWith('1\n00:00:00,000 --> ')
    const vtt = await client.audio.transcriptions.create({ model, file: await toFile(wav, 'a.wav'), response_format: 'vtt' })
    expect(vtt).toStartWith('WEBVTT')
    const verbose = await client.audio.transcriptions.create({
      model,
      file: await toFile(wav, 'a.wav'),
      response_format: 'verbose_json',
      timestamp_granularities: ['word', 'segment'],
    })
    expect(verbose.words!.length).toBeGreaterThan(0)
    expect(verbose.segments!.length).toBeGreaterThan(0)
  })

  test('translations.create: billed like a transcription', async () => {
    await billed({ seconds: 2, model }, async () => {
      const answer = await client.audio.translations.create({ model, file: await toFile(wav, 'auf-deutsch.wav') })
      expect(answer.text).toStartWith(model === 'stt-mock' ? '(translated) 1.50 seconds of wav' : 'translation: ')
    })
    if (model === 'stt-openai') expect(upstream.calls.at(-1)!.path).toBe('/v1/audio/translations')
  })

  test("stream: true — the transcript's events as the upstream wrote them; seconds billed, and the tokens it reports", async () => {
    const tokens = model === 'stt-openai' ? streamedTranscriptionTokens : undefined
    await billed({ seconds: 2, model, tokens }, async () => {
      const stream = await client.audio.transcriptions.create({ model, file: await toFile(wav, 'a.wav'), stream: true })
      const events: { type: string }[] = []
      for await (const event of stream) events.push(event)
      expect(events.at(-1)).toMatchObject({ type: 'transcript.text.done' })
      expect(events.filter((event) => event.type === 'transcript.text.delta').length).toBeGreaterThan(1)
    })
  })

  test('a file that is not audio is a 400 naming the problem, unbilled', async () => {
    const before = await gateway.settled()
    const error = await client.audio.transcriptions
      .create({ model, file: await toFile(Buffer.from('just some text, not audio'), 'notes.wav') })
      .then(
        () => undefined,
        (failure) => failure,
      )
    expect(error).toMatchObject({ status: 400, error: { code: 'unreadable_audio', param: 'file', type: 'invalid_request_error' } })
    expect(error.message).toContain('unknown format: not WAV, MP3, FLAC, OGG, MP4/M4A or WebM')
    const cut = await client.audio.transcriptions
      .create({ model, file: await toFile(fixture('mp3-cbr.mp3').subarray(0, 300), 'cut.mp3') })
      .then(
        () => undefined,
        (failure) => failure,
      )
    expect(cut).toMatchObject({ status: 400, error: { code: 'unreadable_audio' } })
    expect(cut.message).toContain('mp3')
    expect((await gateway.settled()).balance).toBe(before.balance)
  })
})

test('a model with max_audio_seconds takes a file it cannot measure, billed by the seconds its upstream reports', async () => {
  await billed({ seconds: 1, model: 'stt-any' }, async () => {
    const answer = await client.audio.transcriptions.create({
      model: 'stt-any',
      file: await toFile(Buffer.from('raw samples'), 'samples.pcm'),
    })
    expect(answer.text).toBe(transcriptOf('samples.pcm', 11))
  })
})

test("a corrupted multipart body is a 400 in OpenAI's shape, unbilled", async () => {
  const before = await gateway.settled()
  const send = (body: string, type = 'multipart/form-data; boundary=XYZ') =>
    fetch(`${gateway.baseUrl}/audio/transcriptions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gateway.key}`, 'content-type': type },
      body,
    })
  const truncated = await send(
    '--XYZ\r\nContent-Disposition: form-data; name="model"\r\n\r\nstt-mock\r\n--XYZ\r\nContent-Disposition: form-data; name="file"; filename="a.wav"\r\n\r\nRIFF',
  )
  expect(truncated.status).toBe(400)
  expect(await truncated.json()).toMatchObject({
    error: { type: 'invalid_request_error', message: expect.stringContaining('closing boundary') },
  })
  const noBoundary = await send('model=stt-mock', 'multipart/form-data')
  expect(noBoundary.status).toBe(400)
  const noFile = await send('--XYZ\r\nContent-Disposition: form-data; name="model"\r\n\r\nstt-mock\r\n--XYZ--\r\n')
  expect(await noFile.json()).toMatchObject({ error: { param: 'file', message: "Missing required parameter: 'file'." } })
  expect((await gateway.settled()).balance).toBe(before.balance)
})

test('an upstream that fails is retried; one that fails every attempt costs nothing', async () => {
  upstream.failNext.push(500)
  await billed({ seconds: 2, model: 'stt-openai' }, async () => {
    expect((await client.audio.transcriptions.create({ model: 'stt-openai', file: await toFile(wav, 'a.wav') })).text).toBe(
      transcriptOf('a.wav', wav.length),
    )
  })
  const before = await gateway.settled()
  upstream.failNext.push(500, 500)
  const error = await client.audio.transcriptions.create({ model: 'stt-openai', file: await toFile(wav, 'a.wav') }).then(
    () => undefined,
    (failure) => failure,
  )
  expect(error).toMatchObject({ status: 502 })
  expect((await gateway.settled()).balance).toBe(before.balance)
})

test('a client that leaves midway through its upload costs nothing, and its partial file is removed', async () => {
  const before = await gateway.settled()
  const leave = new AbortController()
  let spooling = 0
  const head =
    '--XYZ\r\nContent-Disposition: form-data; name="model"\r\n\r\nstt-mock\r\n--XYZ\r\nContent-Disposition: form-data; name="file"; filename="a.wav"\r\n\r\n'
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      controller.enqueue(new TextEncoder().encode(head))
      controller.enqueue(new Uint8Array(wav.subarray(0, 2000)))
      // The gateway has begun spooling the file when the client goes.
      for (let waited = 0; waited < 100 && spooled().length === 0; waited++) await Bun.sleep(20)
      spooling = spooled().length
      leave.abort()
    },
  })
  const sent = fetch(`${gateway.baseUrl}/audio/transcriptions`, {
    method: 'POST',
    body,
    signal: leave.signal,
    headers: { authorization: `Bearer ${gateway.key}`, 'content-type': 'multipart/form-data; boundary=XYZ' },
  })
  expect(
    await sent.then(
      () => 'answered',
      () => 'left',
    ),
  ).toBe('left')
  expect(spooling).toBe(1)
  for (let waited = 0; waited < 100 && spooled().length > 0; waited++) await Bun.sleep(20)
  expect(spooled()).toEqual([])
  expect((await gateway.settled()).balance).toBe(before.balance)
})

test('no spooled upload is left behind', () => {
  expect(spooled()).toEqual([])
})
