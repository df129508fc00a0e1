import { mockSpeechAudio, mockSpeechTokens } from '../../src/operations/speech/providers/mock.ts'

/**
 * A loopback OpenAI-compatible audio server: `/v1/audio/speech` answers the mock's silence (WAV or PCM) in chunks, or
 * in SSE with usage; `/v1/audio/transcriptions` and `/translations` read the multipart form as OpenAI does and answer
 * in each `response_format` (json and verbose_json with usage in seconds, or SSE with token usage when `stream`).
 * `holdLastChunk`: the speech answer's last chunk waits until it resolves (a test releases it once its client has
 * the first bytes). `failNext`: statuses the next calls fail with.
 */
export interface AudioUpstream {
  url: string
  /** What each call received: the path, and the form's fields and file (name, size, first bytes) or the JSON body. */
  calls: {
    path: string
    body?: any
    fields?: Record<string, string[]>
    file?: { name: string; type: string; size: number; head: Uint8Array }
  }[]
  failNext: number[]
  holdLastChunk: Promise<void> | undefined
  /** The next speech answer's connection is cut after its first chunk. */
  cutAfterFirstChunk: boolean
  /** Whether the speech answer's last chunk had been sent when the client saw its first bytes. */
  lastChunkSent: boolean
  stop(): Promise<void>
}

const chunkBytes = 4096

/** What the server transcribes a file to. */
export function transcriptOf(name: string, size: number): string {
  return `transcript of ${name} (${size} bytes)`
}

/** The tokens the server reports for a streamed transcription. */
export const streamedTranscriptionTokens = { input: 120, output: 9 }

function speechBody(upstream: AudioUpstream, body: any): Response {
  const audio = mockSpeechAudio({ input: body.input, format: body.response_format === 'pcm' ? 'pcm' : 'wav' })
  const chunks: Uint8Array[] = []
  if (body.stream_format === 'sse') {
    chunks.push(Buffer.from(`data: ${JSON.stringify({ type: 'speech.audio.delta', audio: Buffer.from(audio).toString('base64') })}\n\n`))
    const tokens = mockSpeechTokens(body)
    chunks.push(
      Buffer.from(
        `data: ${JSON.stringify({ type: 'speech.audio.done', usage: { input_tokens: tokens.input, output_tokens: tokens.output, total_tokens: tokens.input + tokens.output } })}\n\n`,
      ),
    )
  } else for (let start = 0; start < audio.length; start += chunkBytes) chunks.push(audio.subarray(start, start + chunkBytes))
  const hold = upstream.holdLastChunk
  const cut = upstream.cutAfterFirstChunk
  upstream.cutAfterFirstChunk = false
  upstream.lastChunkSent = false
  const stream = new ReadableStream<Uint8Array>({
    async start(controller) {
      for (const [index, chunk] of chunks.entries()) {
        if (index === 1 && cut) return controller.error(new Error('cut on purpose'))
        if (index === chunks.length - 1 && hold !== undefined) await hold
        controller.enqueue(chunk)
        await Bun.sleep(1)
      }
      upstream.lastChunkSent = true
      controller.close()
    },
  })
  const type = body.stream_format === 'sse' ? 'text/event-stream' : body.response_format === 'pcm' ? 'audio/pcm' : 'audio/wav'
  return new Response(stream, { headers: { 'content-type': type } })
}

function transcriptionBody(fields: Record<string, string[]>, file: File, translate: boolean): Response {
  const text = (translate ? 'translation: ' : '') + transcriptOf(file.name, file.size)
  const format = fields.response_format?.[0] ?? 'json'
  if (fields.stream?.[0] === 'true') {
    const { input, output } = streamedTranscriptionTokens
    const events = [
      { type: 'transcript.text.delta', delta: text.slice(0, 10) },
      { type: 'transcript.text.delta', delta: text.slice(10) },
      {
        type: 'transcript.text.done',
        text,
        usage: { type: 'tokens', input_tokens: input, output_tokens: output, total_tokens: input + output },
      },
    ]
    return new Response(events.map((event) => `data: ${JSON.stringify(event)}\n\n`).join(''), {
      headers: { 'content-type': 'text/event-stream' },
    })
  }
  if (format === 'text') return new Response(text, { headers: { 'content-type': 'text/plain' } })
  if (format === 'srt') return new Response(`1\n00:00:00,000 --> 00:00:01,000\n${text}\n`, { headers: { 'content-type': 'text/plain' } })
  if (format === 'vtt')
    return new Response(`WEBVTT\n\n00:00:00.000 --> 00:00:01.000\n${text}\n`, { headers: { 'content-type': 'text/plain' } })
  const usage = { type: 'duration', seconds: 1 }
  if (format === 'verbose_json') {
    const granularities = fields['timestamp_granularities[]'] ?? ['segment']
    const answer: Record<string, unknown> = { task: translate ? 'translate' : 'transcribe', language: 'english', duration: 1, text, usage }
    if (granularities.includes('word')) answer.words = [{ word: 'transcript', start: 0, end: 0.5 }]
    if (granularities.includes('segment')) answer.segments = [{ id: 0, start: 0, end: 1, text }]
    return Response.json(answer)
  }
  return Response.json({ text, usage })
}

export function startAudioUpstream(): AudioUpstream {
  const upstream: AudioUpstream = {
    url: '',
    calls: [],
    failNext: [],
    holdLastChunk: undefined,
    cutAfterFirstChunk: false,
    lastChunkSent: false,
    async stop() {
      server.stop(true)
    },
  }
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    idleTimeout: 60,
    maxRequestBodySize: 256 * 1024 * 1024,
    async fetch(request) {
      const path = new URL(request.url).pathname
      const status = upstream.failNext.shift()
      if (path === '/v1/audio/speech') {
        const body = await request.json()
        upstream.calls.push({ path, body })
        if (status) return Response.json({ error: { message: `failing on purpose (${status})` } }, { status })
        return speechBody(upstream, body)
      }
      const form = await request.formData()
      const fields: Record<string, string[]> = {}
      let file: File | undefined
      for (const [name, value] of form.entries()) {
        if (typeof value === 'string') (fields[name] ??= []).push(value)
        else file = value
      }
      if (!file) return Response.json({ error: { message: 'no file' } }, { status: 400 })
      upstream.calls.push({
        path,
        fields,
        file: { name: file.name, type: file.type, size: file.size, head: new Uint8Array(await file.slice(0, 16).arrayBuffer()) },
      })
      if (status) return Response.json({ error: { message: `failing on purpose (${status})` } }, { status })
      return transcriptionBody(fields, file, path.endsWith('/translations'))
    },
  })
  upstream.url = `http://127.0.0.1:${server.port}`
  return upstream
}

/** A gateway config with the mock and an OpenAI-kind provider on `upstream`, two attempts per request, and `models`. */
export function audioGatewayConfig(upstream: AudioUpstream, models: Record<string, unknown>[]) {
  return {
    providers: [
      { name: 'mock', type: 'mock' },
      { name: 'oai', type: 'openai', base_url: `${upstream.url}/v1`, api_key: 'sk-upstream' },
    ],
    routing: { max_attempts: 2, backoff_ms: 1 },
    models: [{ id: 'mock-1', provider: 'mock', price: { input: 1, output: 2 } }, ...models],
  }
}
