import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { startTestGateway, type TestGateway } from '../gateway.ts'
import { type ImagesUpstream, startImagesUpstream } from '../images-upstream.ts'
import { type RerankUpstream, startRerankUpstream } from '../rerank-upstream.ts'
import type { Json, Policy } from './features.ts'
import { imageFeatures, type MediaFeature, type MediaKind, mediaKinds, renderMediaSection, rerankFeatures } from './media-features.ts'

const imageCells = new Map<string, Policy>()
const rerankCells = new Map<string, Policy>()

/**
 * The images and rerank cells of the conformance matrix, on a gateway of their own with an OpenAI-kind loopback
 * server per operation and the mock: each feature sent raw (JSON, or a form for an edit) and its cell checked.
 */
export function defineMediaMatrix(): void {
  let gateway: TestGateway
  let images: ImagesUpstream
  let rerank: RerankUpstream
  const price = { images: { '256x256': 0.01, '1024x1024': 0.04 } }

  beforeAll(async () => {
    images = startImagesUpstream()
    rerank = startRerankUpstream()
    gateway = await startTestGateway({
      config: {
        providers: [
          { name: 'mock', type: 'mock' },
          { name: 'images', type: 'openai', base_url: `${images.url}/v1`, api_key: 'k' },
          { name: 'rerank', type: 'openai', base_url: `${rerank.server.url}/v1`, api_key: 'k' },
        ],
        models: [
          { id: 'image-openai', kind: 'image', provider: 'images', price },
          { id: 'image-mock', kind: 'image', provider: 'mock', price },
          { id: 'rerank-openai', kind: 'rerank', provider: 'rerank', price: { input: 1 } },
          { id: 'rerank-mock', kind: 'rerank', provider: 'mock', price: { input: 1 } },
        ],
      },
    })
  })

  afterAll(async () => {
    await gateway?.stop()
    images?.stop()
    await rerank?.stop()
  })

  async function send(path: string, model: string, feature: MediaFeature): Promise<{ status: number; json: Json }> {
    let body: BodyInit
    const headers: Record<string, string> = { authorization: `Bearer ${gateway.key}` }
    if (feature.edit) {
      const form = new FormData()
      form.append('model', model)
      for (const [name, value] of Object.entries(feature.body)) {
        if (value instanceof Uint8Array) form.append(name, new File([Buffer.from(value)], `${name}.png`, { type: 'image/png' }))
        else form.append(name, String(value))
      }
      body = form
    } else {
      headers['content-type'] = 'application/json'
      body = JSON.stringify({ model, ...feature.body })
    }
    const response = await fetch(`${gateway.baseUrl}${path}`, { method: 'POST', headers, body })
    return { status: response.status, json: (await response.json()) as Json }
  }

  const matrices = [
    {
      operation: 'images',
      features: imageFeatures,
      cells: imageCells,
      path: (feature: MediaFeature) => (feature.edit ? '/images/edits' : '/images/generations'),
      sent: () => images.received,
      model: (kind: MediaKind) => `image-${kind}`,
    },
    {
      operation: 'rerank',
      features: rerankFeatures,
      cells: rerankCells,
      path: () => '/rerank',
      sent: () => rerank.server.requests,
      model: (kind: MediaKind) => `rerank-${kind}`,
    },
  ]
  for (const matrix of matrices) {
    describe.each(matrix.features.map((feature) => [feature.name, feature] as const))(`${matrix.operation}: %s`, (_, feature) => {
      test.each(mediaKinds)('→ %s upstream', async (kind) => {
        const seen = matrix.sent().length
        const reply = await send(matrix.path(feature), matrix.model(kind), feature)
        const policy = feature.policy[kind]
        if (policy === 'refused') {
          expect(reply.status).toBe(400)
          expect(reply.json.error.message).toContain(`(${kind})`)
        } else {
          expect({ status: reply.status, error: reply.json.error }).toEqual({ status: 200, error: undefined })
          if (kind === 'openai') expect(matrix.sent().length).toBe(seen + 1)
          const check = feature.check?.[kind]
          if (policy !== 'ignored') expect(check!(matrix.sent().at(-1) as Json, reply.json)).toBe(true)
        }
        matrix.cells.set(`${feature.name}|${kind}`, policy)
      })
    })
  }
}

/** The images and rerank sections of docs/conformance.md. */
export function renderMediaMatrix(): string[] {
  return [
    ...renderMediaSection(
      'Images',
      [
        "OpenAI's `POST /v1/images/generations` and `POST /v1/images/edits` (a multipart form), to each upstream kind that",
        'makes images: OpenAI-compatible servers and the built-in mock (a solid PNG per image). A model of kind image on an',
        'Anthropic or Gemini provider is refused when the config loads.',
      ],
      'OpenAI',
      imageFeatures,
      imageCells,
    ),
    ...renderMediaSection(
      'Rerank',
      [
        '`POST /v1/rerank` in the shape Cohere, Jina and vLLM share, to OpenAI-compatible servers that serve `/rerank` (vLLM)',
        "and the built-in mock (the share of the query's words a document has).",
      ],
      'Rerank',
      rerankFeatures,
      rerankCells,
    ),
  ]
}
