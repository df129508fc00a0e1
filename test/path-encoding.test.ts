import { afterAll, beforeAll, expect, test } from 'bun:test'
import type { Logger } from '../src/core/logger.ts'
import { startBatchSetup, type BatchSetup } from './support/batches.ts'

/**
 * ISSUE 22: malformed percent-encoding in an ID (`/v1/files/%`) was a 500 with a stack in the log on every batch,
 * file and task route. Every route that reads an ID or a model from its path decodes it in one place
 * (protocols/shared/path-id.ts): a 400 in the caller's protocol shape, and nothing logged as unexpected.
 */
let setup: BatchSetup
const errors: string[] = []
const logger: Logger = { info: () => {}, warn: () => {}, error: (fields, message) => errors.push(`${message} ${JSON.stringify(fields)}`) }

beforeAll(async () => {
  setup = await startBatchSetup({ logger })
})

afterAll(() => setup.stop())

test("a malformed ID in any path is a 400 in the caller's protocol, never a 500", async () => {
  const key = setup.gateway.key
  const openai = { authorization: `Bearer ${key}` }
  const anthropic = { 'x-api-key': key, 'anthropic-version': '2023-06-01' }
  const gemini = { 'x-goog-api-key': key }
  const cases: [string, string, Record<string, string>, 'openai' | 'anthropic' | 'gemini'][] = [
    ['GET', '/v1/files/%', openai, 'openai'],
    ['GET', '/v1/files/%E0%A4%A/content', openai, 'openai'],
    ['DELETE', '/v1/files/%zz', openai, 'openai'],
    ['GET', '/v1/batches/%', openai, 'openai'],
    ['POST', '/v1/batches/%/cancel', openai, 'openai'],
    ['GET', '/v1/tasks/%', openai, 'openai'],
    ['GET', '/v1/tasks/%', anthropic, 'anthropic'],
    ['GET', '/v1/messages/batches/%', anthropic, 'anthropic'],
    ['GET', '/v1/messages/batches/%/results', anthropic, 'anthropic'],
    ['DELETE', '/v1/messages/batches/%', anthropic, 'anthropic'],
    ['GET', '/v1beta/batches/%', gemini, 'gemini'],
    ['POST', '/v1beta/batches/%:cancel', gemini, 'gemini'],
    ['GET', '/v1/batches/%', gemini, 'gemini'],
    ['POST', '/v1beta/models/%:batchGenerateContent', gemini, 'gemini'],
    ['GET', '/v1/responses/%', openai, 'openai'],
    ['GET', '/v1/models/%', anthropic, 'anthropic'],
  ]
  for (const [method, path, headers, shape] of cases) {
    const response = await fetch(`${setup.gateway.url}${path}`, {
      method,
      headers: { ...headers, 'content-type': 'application/json' },
      body: method === 'POST' ? '{}' : undefined,
    })
    const body = (await response.json()) as any
    expect(`${method} ${path}: ${response.status}`).toBe(`${method} ${path}: 400`)
    if (shape === 'openai')
      expect(body.error).toMatchObject({ type: 'invalid_request_error', message: expect.stringContaining('not valid URL encoding') })
    if (shape === 'anthropic')
      expect(body).toMatchObject({
        type: 'error',
        error: { type: 'invalid_request_error', message: expect.stringContaining('not valid URL encoding') },
      })
    if (shape === 'gemini')
      expect(body.error).toMatchObject({
        code: 400,
        status: 'INVALID_ARGUMENT',
        message: expect.stringContaining('not valid URL encoding'),
      })
  }
  expect(errors).toEqual([])
})
