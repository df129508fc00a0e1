import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import type { AudioUpstream } from '../audio-upstream.ts'
import type { TestGateway } from '../gateway.ts'
import type { Json, Policy } from './features.ts'

/**
 * Issue 29's audio matrix, beside chat's and embeddings': each speech and transcription request feature as OpenAI's
 * clients send it, what the gateway does with it toward each upstream kind that has audio (OpenAI-compatible, the
 * mock), and how a test sees it: the loopback OpenAI-kind server's record of what it received, or the answer.
 */
export type AudioKind = 'openai' | 'mock'
export const audioKinds: AudioKind[] = ['openai', 'mock']
type Endpoint = 'speech' | 'transcriptions' | 'translations'
type Call = AudioUpstream['calls'][number]
interface Reply {
  status: number
  type: string
  text: string
}

export interface AudioFeature {
  name: string
  endpoint: Endpoint
  /** Speech: the JSON body (model added). Transcription: the form's fields (model and a WAV file added). */
  body: Json | [string, string][]
  policy: Record<AudioKind, Policy>
  /** What the OpenAI-kind server must have received. */
  received?: (call: Call) => boolean
  /** Where the evidence is in the answer (for the mock, always). */
  answered?: (reply: Reply) => boolean
  notes?: Partial<Record<AudioKind, string>>
}

const speech = (extra: Json = {}) => ({ input: 'Hello', voice: 'alloy', response_format: 'wav', ...extra })
const isWav = (reply: Reply) => reply.type === 'audio/wav' && reply.text.startsWith('RIFF')
const ignoredByMock = 'The mock makes the same silence whatever it is asked to say it like.'

export const audioFeatures: AudioFeature[] = [
  {
    name: 'speech: input and voice',
    endpoint: 'speech',
    body: speech(),
    policy: { openai: 'carried', mock: 'carried' },
    received: (call) => call.body.input === 'Hello' && call.body.voice === 'alloy',
    answered: isWav,
  },
  {
    name: 'speech: custom voice id',
    endpoint: 'speech',
    body: speech({ voice: { id: 'voice_123' } }),
    policy: { openai: 'carried', mock: 'ignored' },
    received: (call) => call.body.voice?.id === 'voice_123',
    notes: { mock: ignoredByMock },
  },
  {
    name: 'speech: response_format mp3',
    endpoint: 'speech',
    body: speech({ response_format: 'mp3' }),
    policy: { openai: 'carried', mock: 'refused' },
    received: (call) => call.body.response_format === 'mp3',
    notes: { mock: 'The mock makes wav and pcm only (it has no encoder).' },
  },
  {
    name: 'speech: response_format pcm',
    endpoint: 'speech',
    body: speech({ response_format: 'pcm' }),
    policy: { openai: 'carried', mock: 'carried' },
    received: (call) => call.body.response_format === 'pcm',
    answered: (reply) => reply.type === 'audio/pcm',
  },
  {
    name: 'speech: speed',
    endpoint: 'speech',
    body: speech({ speed: 1.5 }),
    policy: { openai: 'carried', mock: 'ignored' },
    received: (call) => call.body.speed === 1.5,
    notes: { mock: ignoredByMock },
  },
  {
    name: 'speech: instructions',
    endpoint: 'speech',
    body: speech({ instructions: 'Whisper.' }),
    policy: { openai: 'carried', mock: 'ignored' },
    received: (call) => call.body.instructions === 'Whisper.',
    notes: { mock: ignoredByMock },
  },
  {
    name: 'speech: stream_format sse',
    endpoint: 'speech',
    body: speech({ stream_format: 'sse' }),
    policy: { openai: 'carried', mock: 'carried' },
    received: (call) => call.body.stream_format === 'sse',
    answered: (reply) => reply.type.startsWith('text/event-stream') && reply.text.includes('"speech.audio.done"'),
  },
  {
    name: 'speech: a field the gateway does not know',
    endpoint: 'speech',
    body: speech({ lang_code: 'b' }),
    policy: { openai: 'carried', mock: 'ignored' },
    received: (call) => call.body.lang_code === 'b',
    notes: { openai: "Forwarded as the client sent it (a compatible server's own settings: Kokoro's `lang_code`…).", mock: ignoredByMock },
  },
  {
    name: 'transcription: file',
    endpoint: 'transcriptions',
    body: [],
    policy: { openai: 'carried', mock: 'carried' },
    received: (call) => call.file?.name === 'tone.wav',
    answered: (reply) => JSON.parse(reply.text).text.length > 0,
  },
  ...(['text', 'srt', 'vtt', 'verbose_json'] as const).map(
    (format): AudioFeature => ({
      name: `transcription: response_format ${format}`,
      endpoint: 'transcriptions',
      body: [['response_format', format]],
      policy: { openai: 'carried', mock: 'carried' },
      received: (call) => call.fields?.response_format?.[0] === format,
      answered: (reply) =>
        format === 'verbose_json'
          ? 'duration' in JSON.parse(reply.text)
          : format === 'vtt'
            ? reply.text.startsWith('WEBVTT')
            : !reply.text.startsWith('{'),
    }),
  ),
  {
    name: 'transcription: timestamp_granularities',
    endpoint: 'transcriptions',
    body: [
      ['response_format', 'verbose_json'],
      ['timestamp_granularities[]', 'word'],
    ],
    policy: { openai: 'carried', mock: 'carried' },
    received: (call) => call.fields?.['timestamp_granularities[]']?.[0] === 'word',
    answered: (reply) => Array.isArray(JSON.parse(reply.text).words),
  },
  {
    name: 'transcription: stream',
    endpoint: 'transcriptions',
    body: [['stream', 'true']],
    policy: { openai: 'carried', mock: 'carried' },
    received: (call) => call.fields?.stream?.[0] === 'true',
    answered: (reply) => reply.text.includes('"transcript.text.done"'),
  },
  ...(['language', 'prompt', 'temperature', 'include[]', 'chunking_strategy'] as const).map(
    (field): AudioFeature => ({
      name: `transcription: ${field}`,
      endpoint: 'transcriptions',
      body: [[field, field === 'temperature' ? '0.2' : field === 'include[]' ? 'logprobs' : field === 'chunking_strategy' ? 'auto' : 'en']],
      policy: { openai: 'carried', mock: 'ignored' },
      received: (call) => call.fields?.[field]?.length === 1,
      notes:
        field === 'language'
          ? {
              openai:
                'Every field other than `model` and `file` is forwarded as the client sent it, those the gateway does not know included.',
              mock: "The mock hears only the file's length and container.",
            }
          : undefined,
    }),
  ),
  {
    name: 'translation: file',
    endpoint: 'translations',
    body: [['prompt', 'Bonjour']],
    policy: { openai: 'carried', mock: 'carried' },
    received: (call) => call.fields?.prompt?.[0] === 'Bonjour',
    answered: (reply) => JSON.parse(reply.text).text.length > 0,
  },
]

/** The gateway's audio providers and models: the loopback OpenAI-kind server and the mock. */
export function audioMatrixConfig(upstream: AudioUpstream) {
  return {
    providers: [
      { name: 'audio-openai', type: 'openai', base_url: `${upstream.url}/v1`, api_key: 'audio-secret' },
      { name: 'audio-mock', type: 'mock' },
    ],
    models: audioKinds.flatMap((kind) => [
      { id: `tts-matrix-${kind}`, kind: 'speech', provider: `audio-${kind}`, price: { characters: 1 } },
      { id: `stt-matrix-${kind}`, kind: 'transcription', provider: `audio-${kind}`, price: { audio_minute: 1 } },
    ]),
  }
}

const wav = readFileSync(`${import.meta.dir}/../../fixtures/audio/wav-pcm16.wav`)

async function sendAudio(gateway: TestGateway, feature: AudioFeature, kind: AudioKind): Promise<Reply> {
  const headers = { authorization: `Bearer ${gateway.key}` }
  let init: RequestInit
  if (feature.endpoint === 'speech')
    init = {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ model: `tts-matrix-${kind}`, ...feature.body }),
    }
  else {
    const form = new FormData()
    form.append('model', `stt-matrix-${kind}`)
    for (const [name, value] of feature.body as [string, string][]) form.append(name, value)
    form.append('file', new File([wav], 'tone.wav', { type: 'audio/wav' }))
    init = { method: 'POST', headers, body: form }
  }
  const response = await fetch(`${gateway.baseUrl}/audio/${feature.endpoint}`, init)
  return { status: response.status, type: response.headers.get('content-type') ?? '', text: await response.text() }
}

/** Runs every audio cell (registered as tests) and returns where each one's result lands. */
export function runAudioMatrix(context: () => { gateway: TestGateway; upstream: AudioUpstream }): Map<string, Policy> {
  const results = new Map<string, Policy>()
  describe.each(audioFeatures.map((feature) => [feature.name, feature] as const))('audio: %s', (_, feature) => {
    test.each(audioKinds)('OpenAI client → %s upstream', async (kind) => {
      const { gateway, upstream } = context()
      const seen = upstream.calls.length
      const reply = await sendAudio(gateway, feature, kind)
      const cell = feature.policy[kind]
      if (cell === 'refused') {
        expect(reply.status).toBe(400)
        expect(JSON.parse(reply.text).error.message).toContain(`(${kind})`)
      } else {
        expect({ status: reply.status, body: reply.status === 200 ? '' : reply.text }).toEqual({ status: 200, body: '' })
        if (kind === 'openai') expect(feature.received!(upstream.calls.at(-1)!)).toBe(true)
        if (feature.answered) expect(feature.answered(reply)).toBe(true)
      }
      expect(upstream.calls.length).toBe(seen + (kind === 'openai' && cell !== 'refused' ? 1 : 0))
      results.set(`${feature.name}|${kind}`, cell)
    })
  })
  return results
}

/** The audio section of docs/conformance.md. */
export function renderAudio(results: Map<string, Policy>): string[] {
  const lines = [
    '## Speech and transcription',
    '',
    "OpenAI's `POST /v1/audio/speech`, `/v1/audio/transcriptions` and `/v1/audio/translations`, to each upstream kind",
    'that has them (a speech or transcription model on an Anthropic or Gemini provider is refused when the config',
    "loads). A speech answer is the upstream's audio (or SSE) relayed as it comes; a transcription is the upstream's",
    'answer in the format asked for, as it wrote it.',
    '',
    '| feature | OpenAI → openai | OpenAI → mock |',
    '|---|---|---|',
    ...audioFeatures.map(
      (feature) => `| ${feature.name} | ${audioKinds.map((kind) => results.get(`${feature.name}|${kind}`) ?? '—').join(' | ')} |`,
    ),
    '',
  ]
  for (const feature of audioFeatures) {
    for (const kind of audioKinds) {
      const note = feature.notes?.[kind]
      if (note) lines.push(`- **${feature.name} → ${kind}** (${feature.policy[kind]}): ${note}`)
    }
  }
  lines.push('')
  return lines
}
