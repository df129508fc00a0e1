import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import Anthropic from '@anthropic-ai/sdk'
import { GoogleGenAI } from '@google/genai'
import OpenAI, { toFile } from 'openai'
import { jsonl, pollUntil, startBatchSetup, type BatchSetup } from './support/batches.ts'
import { runCli } from './support/cli.ts'

let setup: BatchSetup

beforeAll(async () => {
  setup = await startBatchSetup()
})

afterAll(() => setup.stop())

const getTask = async (id: string, key = setup.gateway.key) => {
  const response = await fetch(`${setup.gateway.url}/v1/tasks/${id}`, { headers: { authorization: `Bearer ${key}` } })
  return { status: response.status, body: (await response.json()) as any }
}

describe('GET /v1/tasks: one view of every kind of batch', () => {
  test("each protocol's own ID shows kind, status, counts, times and exact spend; the list is newest first", async () => {
    const openai = new OpenAI({ baseURL: setup.gateway.baseUrl, apiKey: setup.gateway.key, maxRetries: 0 })
    const file = await openai.files.create({
      file: await toFile(
        Buffer.from(
          jsonl([
            {
              custom_id: 'a',
              method: 'POST',
              url: '/v1/chat/completions',
              body: { model: 'gpt-up', messages: [{ role: 'user', content: 'hi' }] },
            },
          ]),
        ),
        'a.jsonl',
      ),
      purpose: 'batch',
    })
    const openAiBatch = await openai.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' })
    const anthropic = new Anthropic({ baseURL: setup.gateway.url, apiKey: setup.gateway.key, maxRetries: 0 })
    const messageBatch = await anthropic.messages.batches.create({
      requests: [{ custom_id: 'a', params: { model: 'claude-up', max_tokens: 32, messages: [{ role: 'user', content: 'hi' }] } }],
    })
    const gemini = new GoogleGenAI({ apiKey: setup.gateway.key, httpOptions: { baseUrl: setup.gateway.url } })
    const job = await gemini.batches.create({ model: 'gemini-up', src: [{ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }] })

    const expected = [
      [openAiBatch.id, 'openai', 11 * 1000 + 7 * 2000],
      [messageBatch.id, 'anthropic', 11 * 1500 + 7 * 7500],
      [job.name!, 'gemini', 11 * 625 + 7 * 5000],
    ] as const
    for (const [id, kind, cost] of expected) {
      const { status, body } = await pollUntil(
        () => getTask(id),
        (value) => value.body.status === 'completed',
      )
      expect(status).toBe(200)
      expect(body).toMatchObject({ object: 'task', kind, status: 'completed', counts: { total: 1, pending: 0, succeeded: 1, failed: 0 } })
      expect(body.started_at).toBeString()
      expect(body.finished_at).toBeString()
      expect(body.spent).toBe((cost / 1e9).toFixed(9).replace(/0+$/, ''))
    }
    const list = (await (
      await fetch(`${setup.gateway.url}/v1/tasks?limit=2`, { headers: { authorization: `Bearer ${setup.gateway.key}` } })
    ).json()) as any
    expect(list.data.map((task: any) => task.kind)).toEqual(['gemini', 'anthropic'])
    expect(list.has_more).toBe(true)

    // Another account's task, and an unknown one: the same 404, naming the ID, in the asking client's shape.
    const stranger = await setup.gateway.createAccount('stranger-tasks', '1')
    const { createKey } = await import('../src/domain/keys.ts')
    const { secret } = await createKey(setup.gateway.gateway.services.store.keys, { accountId: stranger.id })
    for (const id of [openAiBatch.id, 'batch_unknown']) {
      const { status, body } = await getTask(id, secret)
      expect(status).toBe(404)
      expect(body.error.message).toContain(id)
    }
    const viaAnthropic = await fetch(`${setup.gateway.url}/v1/tasks/${messageBatch.id}`, {
      headers: { 'x-api-key': secret, 'anthropic-version': '2023-06-01' },
    })
    expect(await viaAnthropic.json()).toMatchObject({ type: 'error', error: { type: 'not_found_error' } })

    // The CLI reads the same records (SQLite's WAL lets it run beside the gateway).
    const config = `${setup.gateway.gateway.services.config.database.replace(/^sqlite:/, '')}.yaml`
    await Bun.write(
      config,
      `database: ${setup.gateway.gateway.services.config.database}\nproviders: [{ name: mock, type: mock }]\nmodels: []\n`,
    )
    const shown = runCli(['bun', 'src/main.ts'], ['task', 'show', messageBatch.id, '--json', '--config', config])
    expect(shown.code).toBe(0)
    expect(shown.json()).toMatchObject({ id: messageBatch.id, kind: 'anthropic', status: 'completed', spent: expect.any(String) })
    const listed = runCli(['bun', 'src/main.ts'], ['task', 'list', '--json', '--config', config])
    expect(listed.json().length).toBe(3)
    // Read by people: a header row, then one task a line, money with $.
    const table = runCli(['bun', 'src/main.ts'], ['task', 'list', '--config', config]).stdout.trimEnd().split('\n')
    expect(table[0]).toMatch(/^ID\s+API\s+STATUS\s+DONE\s+SPENT\s+CREATED$/)
    expect(table.slice(1)).toHaveLength(3)
    for (const line of table.slice(1)) expect(line).toMatch(/\s(openai|anthropic|gemini)\s+\w+\s+\d+\/\d+\s+\$\d/)
    expect(runCli(['bun', 'src/main.ts'], ['task', 'show', 'batch_unknown', '--config', config]).code).toBe(3)
  }, 30_000)
})
