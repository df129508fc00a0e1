import { afterAll, beforeAll, expect, test } from 'bun:test'
import { mkdtempSync, readdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createPng } from '../src/core/png.ts'
import { makeWorkspace, runCli, startServe } from './support/cli.ts'
import { memoryOf, settledMemory, withAllocatorPurge } from './support/memory.ts'

/**
 * An edit's upload is read as it streams in and its files written to disk, then sent upstream from disk a read at a
 * time, never held whole: the gateway (its own process) takes three 40 MB images in one form (120 MB), to the mock
 * and to an OpenAI-kind upstream, while its peak resident memory (VmHWM) grows by less than the form (a form held
 * whole grows it by at least that) and its resident memory by less than half of it — what the collector has not
 * caught up on yet, whatever the size (the peak once grew 61 MB in CI, under half the form in every run alone) — and
 * the files kept aside are gone once the request is answered.
 */
const cli = ['bun', 'src/main.ts']
const spool = mkdtempSync(join(tmpdir(), 'tollgate-edit-memory-'))
let server: Awaited<ReturnType<typeof startServe>>
let key: string
/** An OpenAI-kind upstream that reads each edit's body to its end, counting it, and answers one small image. */
const received: number[] = []
const upstream = Bun.serve({
  hostname: '127.0.0.1',
  port: 0,
  async fetch(request) {
    let bytes = 0
    for await (const chunk of request.body!) bytes += chunk.byteLength
    received.push(bytes)
    return Response.json({ created: 1, data: [{ b64_json: Buffer.from(createPng(256, 256, 'upstream')).toString('base64') }] })
  },
})

beforeAll(async () => {
  const { config } = makeWorkspace(`providers:
  - { name: mock, type: mock }
  - { name: up, type: openai, base_url: "http://127.0.0.1:${upstream.port}/v1" }
models:
  - { id: mock-image, kind: image, provider: mock, price: { images: { "256x256": 0.01 } } }
  - { id: upstream-image, kind: image, provider: up, price: { images: { "256x256": 0.01 } } }
`)
  const run = (...args: string[]) => runCli(cli, [...args, '--config', config])
  expect(run('migrate').code).toBe(0)
  expect(run('account', 'create', 'acme', '--balance', '100').code).toBe(0)
  key = run('key', 'create', '--account', 'acme', '--json').json().key as string
  // The gateway's temporary files go to a folder of this test's own, so it can tell they were removed.
  // Bun's default purge (serve keeps freed memory for reuse otherwise: launch-environment.ts), so that what the
  // gateway's memory shows is what the upload path holds, not what the allocator kept of earlier work.
  server = await startServe(cli, config, { env: withAllocatorPurge({ ...process.env, TMPDIR: spool }) })
})

afterAll(async () => {
  server.process.kill('SIGTERM')
  await server.process.exited
  upstream.stop(true)
})

/** A "PNG" of `bytes` bytes: the signature, then filler (the mock reads the type from the first bytes, nothing more). */
function bigPng(bytes: number): Uint8Array {
  const image = new Uint8Array(bytes)
  image.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
  for (let index = 8; index < bytes; index += 4096) image[index] = index & 0xff
  return image
}

async function edit(model: string, ...images: Uint8Array[]): Promise<Response> {
  const form = new FormData()
  form.append('model', model)
  form.append('prompt', 'make it bigger')
  form.append('size', '256x256')
  for (const [index, image] of images.entries())
    form.append('image[]', new File([Buffer.from(image)], `big-${index}.png`, { type: 'image/png' }))
  return fetch(`${server.url}/v1/images/edits`, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: form })
}

test.each(['mock-image', 'upstream-image'])(
  "%s: three 40 MB images do not grow the gateway's memory by their size, and their spooled files are removed",
  async (model) => {
    // Warm up (code paths, SQLite pages, allocator arenas) with a 4 MB edit first.
    expect((await edit(model, bigPng(4 * 1024 * 1024))).status).toBe(200)
    const image = bigPng(40 * 1024 * 1024)
    const formMegabytes = 120
    const before = memoryOf(server.process.pid)
    const response = await edit(model, image, image, image)
    expect(response.status).toBe(200)
    expect(((await response.json()) as { data: unknown[] }).data).toHaveLength(1)
    const after = await settledMemory(server.process.pid, before, formMegabytes / 2)
    const grown = { rss: after.rss - before.rss, peak: after.peak - before.peak }
    console.log(
      `${model}, 120 MB edit: gateway VmRSS ${before.rss.toFixed(1)} → ${after.rss.toFixed(1)} MB (${grown.rss.toFixed(1)}), peak VmHWM ${before.peak.toFixed(1)} → ${after.peak.toFixed(1)} MB (${grown.peak.toFixed(1)})`,
    )
    expect(grown.peak).toBeLessThan(formMegabytes)
    expect(grown.rss).toBeLessThan(formMegabytes / 2)
    expect(readdirSync(spool).filter((name) => name.startsWith('tollgate-edit-'))).toEqual([])
    if (model === 'upstream-image') expect(received.at(-1)!).toBeGreaterThan(3 * image.length)
  },
  60_000,
)

test('an image over 50 MB is refused with a 400 naming the field, and nothing is kept', async () => {
  const response = await edit('upstream-image', bigPng(51 * 1024 * 1024))
  expect(response.status).toBe(400)
  expect(await response.json()).toMatchObject({ error: { code: 'file_too_large', param: 'image[]', type: 'invalid_request_error' } })
  expect(readdirSync(spool).filter((name) => name.startsWith('tollgate-edit-'))).toEqual([])
}, 60_000)
