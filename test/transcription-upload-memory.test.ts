import { afterAll, beforeAll, expect, test } from 'bun:test'
import { readdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { type AudioUpstream, startAudioUpstream, transcriptOf } from './support/audio-upstream.ts'
import { serveWithKey, type startServe } from './support/cli.ts'
import { memoryOf, withAllocatorPurge } from './support/memory.ts'

/**
 * A large audio upload is spooled to disk as it streams in and sent upstream from there, never held whole: the
 * gateway (its own process) takes a 60 MB WAV, then a 120 MB one, measures each from its header and forwards it
 * whole, while its peak resident memory (VmHWM) and resident memory grow by less than the smaller file — a bound that
 * does not grow with the upload (batches-upload-memory.test.ts measures batch uploads alike). No spooled file is left.
 */
let upstream: AudioUpstream
let server: Awaited<ReturnType<typeof startServe>>
let key: string

beforeAll(async () => {
  upstream = startAudioUpstream()
  const yaml = `providers:
  - { name: oai, type: openai, base_url: "${upstream.url}/v1", api_key: sk-upstream }
models:
  - { id: stt, kind: transcription, provider: oai, price: { audio_minute: 0.006 } }
tasks: { max_file_bytes: 209715200 }
`
  // Bun's default purge (serve keeps freed memory for reuse otherwise: launch-environment.ts): what the gateway's memory
  // shows is then what the upload path holds, not what the allocator kept of earlier work.
  ;({ server, key } = await serveWithKey(yaml, withAllocatorPurge()))
}, 30_000)
afterAll(async () => {
  server.process.kill('SIGTERM')
  await server.process.exited
  await upstream.stop()
})

/** A WAV of `bytes` bytes of 16-bit mono 8 kHz silence (header included). */
function wavOf(bytes: number): Uint8Array<ArrayBuffer> {
  const file = new Uint8Array(bytes)
  const header = Buffer.alloc(44)
  header.write('RIFF', 0, 'ascii')
  header.writeUInt32LE(bytes - 8, 4)
  header.write('WAVEfmt ', 8, 'ascii')
  header.writeUInt32LE(16, 16)
  header.writeUInt16LE(1, 20)
  header.writeUInt16LE(1, 22)
  header.writeUInt32LE(8000, 24)
  header.writeUInt32LE(16000, 28)
  header.writeUInt16LE(2, 32)
  header.writeUInt16LE(16, 34)
  header.write('data', 36, 'ascii')
  header.writeUInt32LE(bytes - 44, 40)
  file.set(header)
  return file
}

async function transcribe(file: Uint8Array<ArrayBuffer>): Promise<Response> {
  const form = new FormData()
  form.append('model', 'stt')
  form.append('file', new File([file], 'long.wav', { type: 'audio/wav' }))
  return fetch(`${server.url}/v1/audio/transcriptions`, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: form })
}

test("a 60 MB upload, then a 120 MB one, do not grow the gateway's memory by their size, and reach the upstream whole", async () => {
  const megabytes = 1024 * 1024
  // Warm up code paths and the allocator's arenas with an upload of the size the collector lets pile up.
  expect((await transcribe(wavOf(32 * megabytes))).status).toBe(200)
  const before = memoryOf(server.process.pid)
  for (const fileBytes of [60 * megabytes, 120 * megabytes]) {
    const response = await transcribe(wavOf(fileBytes))
    expect(response.status).toBe(200)
    expect(await response.json()).toMatchObject({ text: transcriptOf('long.wav', fileBytes) })
    expect(upstream.calls.at(-1)!.file!.size).toBe(fileBytes)
    const after = memoryOf(server.process.pid)
    const grown = { rss: after.rss - before.rss, peak: after.peak - before.peak }
    console.log(
      `${fileBytes / megabytes} MB audio upload: gateway VmRSS ${before.rss.toFixed(1)} → ${after.rss.toFixed(1)} MB (${grown.rss.toFixed(1)}), peak VmHWM ${before.peak.toFixed(1)} → ${after.peak.toFixed(1)} MB (${grown.peak.toFixed(1)})`,
    )
    // Held whole (FormData with the file, or the body read at once), the peak grew by three times the file. Streamed
    // in and out, by what the collector has not caught up on yet: ~35-50 MB on this machine, whatever the size.
    expect(grown.peak).toBeLessThan(60)
    expect(grown.rss).toBeLessThan(60)
  }
  expect(readdirSync(tmpdir()).filter((name) => name.startsWith('tollgate-audio-upload-'))).toEqual([])
}, 60_000)
