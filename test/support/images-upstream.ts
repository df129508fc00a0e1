import { createPng } from '../../src/core/png.ts'

/**
 * A loopback OpenAI-compatible images server: `POST /v1/images/generations` (JSON) and `/v1/images/edits` (a
 * multipart form, read with the platform's own parser), answering a solid PNG per image (its colour from the prompt
 * and the image's place, as the mock's) and, like gpt-image models, the size and quality it made and a token report:
 * a token per character of the prompt in, 100 out per image. What each request carried is kept (`received`, files
 * as their bytes), and `failNext` makes the next calls fail with that status.
 */
export interface ImagesUpstream {
  url: string
  received: {
    path: string
    fields: Record<string, unknown>
    files: { field: string; filename: string; type: string; bytes: Uint8Array }[]
  }[]
  failNext: number[]
  /** Answer with URLs (as dall-e models do) instead of b64_json. */
  urls: boolean
  /** Report no usage (as dall-e models). */
  noUsage: boolean
  /** Wait this long before answering (a client may leave meanwhile). */
  delayMs: number
  stop(): void
}

export const upstreamOutputTokensPerImage = 100

export function startImagesUpstream(): ImagesUpstream {
  const upstream: ImagesUpstream = {
    url: '',
    received: [],
    failNext: [],
    urls: false,
    noUsage: false,
    delayMs: 0,
    stop: () => server.stop(true),
  }
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(request) {
      const path = new URL(request.url).pathname
      const fields: Record<string, unknown> = {}
      const files: ImagesUpstream['received'][number]['files'] = []
      if (path.endsWith('/edits')) {
        const form = await request.formData()
        for (const [field, value] of form.entries()) {
          if (typeof value === 'string') fields[field] = value
          else {
            const file = value as unknown as File
            files.push({ field, filename: file.name, type: file.type, bytes: new Uint8Array(await file.arrayBuffer()) })
          }
        }
      } else Object.assign(fields, await request.json())
      upstream.received.push({ path, fields, files })
      await Bun.sleep(upstream.delayMs)
      const status = upstream.failNext.shift()
      if (status !== undefined)
        return Response.json({ error: { message: `failing on purpose (${status})`, type: 'server_error' } }, { status })
      const n = Number(fields.n ?? 1)
      const size = String(fields.size && fields.size !== 'auto' ? fields.size : '1024x1024')
      const [width, height] = size.split('x').map(Number)
      const prompt = String(fields.prompt)
      const data = Array.from({ length: n }, (_, index) => {
        const b64 = Buffer.from(createPng(width!, height!, `${prompt}#${index}`)).toString('base64')
        return upstream.urls ? { url: `https://images.example/${index}.png` } : { b64_json: b64 }
      })
      const body: Record<string, unknown> = {
        created: 1_700_000_000,
        data,
        size,
        quality: fields.quality ?? 'medium',
        output_format: fields.output_format ?? 'png',
      }
      if (!upstream.noUsage)
        body.usage = {
          input_tokens: prompt.length,
          output_tokens: n * upstreamOutputTokensPerImage,
          total_tokens: prompt.length + n * upstreamOutputTokensPerImage,
        }
      return Response.json(body)
    },
  })
  upstream.url = `http://127.0.0.1:${server.port}`
  return upstream
}

/** Prices that show rounding and tell qualities apart: USD per image. */
export const imagePrices = {
  '1024x1024/low': '0.011',
  '1024x1024/medium': '0.042',
  '1024x1024/high': '0.167',
  '1536x1024/high': '0.25',
  '256x256': '0.016',
}

/** A gateway config with image models per image and per token, on the loopback server and the mock. */
export function imagesConfig(upstream: ImagesUpstream) {
  return {
    providers: [
      { name: 'mock', type: 'mock' },
      { name: 'oai', type: 'openai', base_url: `${upstream.url}/v1`, api_key: 'sk-upstream' },
    ],
    models: [
      { id: 'mock-1', provider: 'mock', price: { input: 1, output: 2 } },
      { id: 'image-openai', kind: 'image', provider: 'oai', upstream_model: 'gpt-image-1', price: { images: imagePrices }, max_images: 4 },
      { id: 'image-mock', kind: 'image', provider: 'mock', price: { images: imagePrices }, max_images: 4 },
      {
        id: 'image-tokens',
        kind: 'image',
        provider: 'oai',
        upstream_model: 'gpt-image-1',
        price: { input: '5.0000001', output: '40' },
        max_output_tokens: 6240,
      },
      { id: 'image-mock-tokens', kind: 'image', provider: 'mock', price: { input: '5.0000001', output: '40' }, max_output_tokens: 6240 },
    ],
  }
}
