import { expect } from 'bun:test'

/**
 * ISSUE 22: batch work and uploads in test/hostile-binary.test.ts's all-at-once run against the compiled binary — a
 * $0 account's 20,000-item batch refused item by item, a 20 MiB blank-line file and a 50,000-line file made batches —
 * kept apart from the other abuses. Each loop runs while `running()` says so and reports what it met.
 */

/** The test's fetch, which records a failed connection (and answers 599) rather than throwing. */
type FetchOrRecord = (what: string, url: string, init?: RequestInit) => Promise<Response>

/** One of the $0 account's batches that ended: how many items, how many refused, how long it took. */
export interface FailingBatch {
  total: number
  errored: number
  ms: number
}

/** 20,000 Anthropic requests, serialized once (the test thread's own work is not what is measured). */
const pauperBatchBody = JSON.stringify({
  requests: Array.from({ length: 20_000 }, (_, index) => ({
    custom_id: `r${index}`,
    params: { model: 'shared', max_tokens: 8, messages: [{ role: 'user', content: 'hi' }] },
  })),
})

/**
 * The $0 account submits a 20,000-item Anthropic batch, every item refused for money (7.7 s of blocked loop once),
 * waits for it to end, and submits another, while the scenario runs.
 */
export async function stallWithFailingBatches(
  url: string,
  key: string,
  running: () => boolean,
  fetchOrRecord: FetchOrRecord,
): Promise<FailingBatch[]> {
  const headers = { 'x-api-key': key, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' }
  const ended: FailingBatch[] = []
  while (running()) {
    const started = performance.now()
    const created = await fetchOrRecord('pauper batch', `${url}/v1/messages/batches`, { method: 'POST', headers, body: pauperBatchBody })
    if (created.status === 599) continue // recorded in `broken`
    if (created.status !== 200) throw new Error(`a $0 account's batch was answered ${created.status}: ${await created.text()}`)
    const { id } = (await created.json()) as { id: string }
    while (running()) {
      await Bun.sleep(250)
      const batch = (await (
        await fetchOrRecord('pauper poll', `${url}/v1/messages/batches/${id}`, { headers })
      )
        .json()
        .catch(() => undefined)) as any
      if (batch?.processing_status !== 'ended') continue
      ended.push({ total: 20_000, errored: batch.request_counts.errored, ms: performance.now() - started })
      break
    }
    await Bun.sleep(1000)
  }
  return ended
}

/** What uploading a file and making a batch of it was answered. */
export interface UploadedBatch {
  what: string
  status: number
}

/** 20 MiB of blank lines (4.3 s of blocked loop once) and 50,000 valid lines (2.5 s), built once. */
const blankLines = new Blob([new Uint8Array(20 * 1024 * 1024).fill(10)])
const validLines = new Blob([
  Array.from({ length: 50_000 }, (_, index) =>
    JSON.stringify({
      custom_id: `r${index}`,
      method: 'POST',
      url: '/v1/chat/completions',
      body: { model: 'shared', max_tokens: 8, messages: [{ role: 'user', content: 'hi' }] },
    }),
  ).join('\n') + '\n',
])

/**
 * Account A uploads each file and makes a batch of it, in turn, while the scenario runs: the blank lines are refused
 * at line 50,001, the valid lines make a batch that is cancelled at once; each file is deleted after.
 */
export async function stallWithUploads(
  url: string,
  key: string,
  running: () => boolean,
  fetchOrRecord: FetchOrRecord,
): Promise<UploadedBatch[]> {
  const headers = { authorization: `Bearer ${key}` }
  const results: UploadedBatch[] = []
  await Bun.sleep(1000) // the scenario's other abuses under way first
  for (let round = 0; running(); round++) {
    const [what, file] = round % 2 ? (['50,000 lines', validLines] as const) : (['20 MiB of blank lines', blankLines] as const)
    const form = new FormData()
    form.append('purpose', 'batch')
    form.append('file', new File([file], 'input.jsonl'))
    const uploaded = await fetchOrRecord('upload', `${url}/v1/files`, { method: 'POST', headers, body: form })
    if (uploaded.status !== 200) {
      results.push({ what: `upload of ${what}`, status: uploaded.status })
      continue
    }
    const { id } = (await uploaded.json()) as { id: string }
    const created = await fetchOrRecord('batch from upload', `${url}/v1/batches`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ input_file_id: id, endpoint: '/v1/chat/completions', completion_window: '24h' }),
    })
    const answer = (await created.json().catch(() => undefined)) as any
    results.push({ what, status: created.status })
    if (created.status === 200) await fetchOrRecord('cancel', `${url}/v1/batches/${answer.id}/cancel`, { method: 'POST', headers })
    await fetchOrRecord('delete file', `${url}/v1/files/${id}`, { method: 'DELETE', headers })
    await Bun.sleep(2000) // a tenant's batches, not a flood of them: each costs its tens of MB until collected
  }
  return results
}

/**
 * Each kind of batch work was met, and each answered as it should: refused items, a 400 for blank lines, a batch. An
 * upload may be cut by the run's 2 s body deadline (408) on a starved machine; it never gets anything else.
 */
export function expectBatchStallsMet(batches: FailingBatch[], uploads: UploadedBatch[]): void {
  expect(batches.length).toBeGreaterThanOrEqual(1)
  for (const batch of batches) expect(batch.errored).toBe(batch.total)
  expect(uploads.filter((one) => one.what === '20 MiB of blank lines').length).toBeGreaterThanOrEqual(1)
  expect(uploads.filter((one) => one.what === '50,000 lines').length).toBeGreaterThanOrEqual(1)
  const expected = (what: string) => (what.startsWith('upload of') ? 408 : what === '50,000 lines' ? 200 : 400)
  for (const one of uploads) expect(`${one.what}: ${one.status}`).toBe(`${one.what}: ${expected(one.what)}`)
}

/** What the batch loops met, for the record. */
export function logBatchStalls(batches: FailingBatch[], uploads: UploadedBatch[]): void {
  console.log(
    `$0 account's 20,000-item batches: ${batches.map((one) => `${one.errored}/${one.total} refused in ${(one.ms / 1000).toFixed(1)} s`).join(', ') || 'none ended'}`,
  )
  console.log(`uploads made batches: ${uploads.map((one) => `${one.what} → ${one.status}`).join(', ')}`)
}
