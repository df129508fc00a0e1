import { afterAll, beforeAll, expect, test } from 'bun:test'
import OpenAI, { toFile } from 'openai'
import { mockEmbedding } from '../src/operations/embeddings/providers/mock.ts'
import { jsonl, pollUntil } from './support/batches.ts'
import { embeddingsConfig, type EmbeddingsUpstreams, startEmbeddingsUpstreams } from './support/embeddings-upstreams.ts'
import { startTestGateway, type TestGateway } from './support/gateway.ts'

/**
 * OpenAI Batch items with `"url": "/v1/embeddings"` run like chat items: each held and billed on its own, at the
 * model's `price.batch`, with its vectors in the output file under its custom_id.
 */
let upstreams: EmbeddingsUpstreams
let gateway: TestGateway
let client: OpenAI

beforeAll(async () => {
  upstreams = startEmbeddingsUpstreams()
  const batchPriced = {
    id: 'embed-batch',
    kind: 'embedding',
    provider: 'oai',
    upstream_model: 'text-embedding-3-small',
    price: { input: '0.0201', batch: { input: '0.01005' } },
  }
  gateway = await startTestGateway({
    config: { ...embeddingsConfig(upstreams, { models: [batchPriced] }), tasks: { concurrency: 8, per_account: 8 } },
  })
  client = new OpenAI({ baseURL: gateway.baseUrl, apiKey: gateway.key, maxRetries: 0 })
})

afterAll(async () => {
  await gateway?.stop()
  await upstreams?.stop()
})

const item = (index: number, model = 'embed-batch') => ({
  custom_id: `doc-${index}`,
  method: 'POST',
  url: '/v1/embeddings',
  body: { model, input: `document number ${index} ${'.'.repeat(index % 17)}`, encoding_format: 'float' },
})

async function upload(lines: unknown[]) {
  return client.files.create({ file: await toFile(Buffer.from(jsonl(lines)), 'embeddings.jsonl'), purpose: 'batch' })
}

test('a batch of 1,000 embedding items completes, each billed once at the batch price, exactly', async () => {
  const before = await gateway.settled()
  const lines = Array.from({ length: 1000 }, (_, index) => item(index))
  const created = await client.batches.create({
    input_file_id: (await upload(lines)).id,
    endpoint: '/v1/embeddings',
    completion_window: '24h',
  })
  const batch = await pollUntil(
    () => client.batches.retrieve(created.id),
    (value) => value.status === 'completed',
    120_000,
  )
  expect(batch.request_counts).toEqual({ total: 1000, completed: 1000, failed: 0 })
  // 10.05 nano-dollars a token at the batch price, each item rounded up on its own.
  const expected = lines.reduce((sum, line) => sum + Math.ceil((line.body.input.length * 1005) / 100), 0)
  const after = await gateway.settled()
  expect(before.balance - after.balance).toBe(expected)
  const rows = await gateway.gateway.services.store.usage.summarize({ accountId: gateway.account.id, model: 'embed-batch' })
  expect(rows).toMatchObject({ requests: 1000, spent: expected })
  const output = (await (await client.files.content(batch.output_file_id!)).text())
    .trim()
    .split('\n')
    .map((row) => JSON.parse(row))
  expect(output).toHaveLength(1000)
  const sample = output.find((row) => row.custom_id === 'doc-123')
  expect(sample.response.status_code).toBe(200)
  expect(sample.response.body.data[0].embedding).toEqual(Array.from(mockEmbedding(lines[123]!.body.input)))
  expect(sample.response.body.usage.prompt_tokens).toBe(lines[123]!.body.input.length)
}, 180_000)

test('an embeddings line for a chat model, or in a chat batch, is refused before anything runs, naming the line', async () => {
  const wrongKind = await client.batches
    .create({ input_file_id: (await upload([item(1), item(2, 'mock-1')])).id, endpoint: '/v1/embeddings', completion_window: '24h' })
    .catch((error) => error)
  expect(wrongKind.status).toBe(400)
  expect(wrongKind.message).toContain(
    "line 2 (custom_id doc-2): The model 'mock-1' is a chat model (kind: chat): it cannot serve embeddings requests.",
  )
  const wrongUrl = await client.batches
    .create({ input_file_id: (await upload([item(1)])).id, endpoint: '/v1/chat/completions', completion_window: '24h' })
    .catch((error) => error)
  expect(wrongUrl.message).toContain("'url' is \"/v1/embeddings\", but this batch's endpoint is /v1/chat/completions")
})
