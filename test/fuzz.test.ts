import { afterAll, beforeAll, expect, test } from 'bun:test'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { startTestGateway, type TestGateway } from './support/gateway.ts'

/**
 * Fuzzing every public endpoint with generated bodies, headers, paths and methods (seeded: a failure names its seed
 * and case), plus a corpus of past breakers (test/fixtures/fuzz-corpus/). Client input never gets a 5xx, never
 * crashes the gateway, and every refusal is in the protocol's error shape. FUZZ_SEED and FUZZ_CASES override.
 */
const seed = Number(process.env.FUZZ_SEED ?? 20261123)
const cases = Number(process.env.FUZZ_CASES ?? 3000)
let gateway: TestGateway

beforeAll(async () => {
  gateway = await startTestGateway()
})
afterAll(() => gateway.stop())

interface Case {
  method: string
  path: string
  headers?: Record<string, string>
  body?: string
  bodyBase64?: string
}

/** mulberry32: a small, fast, seeded generator. */
function generator(start: number): () => number {
  let state = start >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const bases: { path: string; body: Record<string, unknown> }[] = [
  {
    path: '/v1/chat/completions',
    body: {
      model: 'mock-1',
      max_tokens: 8,
      stream: false,
      temperature: 0.5,
      stream_options: { include_usage: true },
      tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }],
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: [{ type: 'text', text: 'hi' }] },
      ],
    },
  },
  {
    path: '/v1/responses',
    body: {
      model: 'mock-1',
      max_output_tokens: 8,
      stream: false,
      instructions: 'x',
      input: [{ role: 'user', content: [{ type: 'input_text', text: 'hi' }] }],
      reasoning: { effort: 'low' },
    },
  },
  {
    path: '/v1/messages',
    body: {
      model: 'mock-1',
      max_tokens: 8,
      stream: false,
      system: [{ type: 'text', text: 'x' }],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
      tool_choice: { type: 'auto' },
      metadata: { user_id: 'u' },
    },
  },
  { path: '/v1/messages/count_tokens', body: { model: 'mock-1', messages: [{ role: 'user', content: 'hi' }] } },
  {
    path: '/v1beta/models/mock-1:generateContent',
    body: {
      contents: [{ role: 'user', parts: [{ text: 'hi' }] }],
      generationConfig: { maxOutputTokens: 8, temperature: 1 },
      systemInstruction: { parts: [{ text: 'x' }] },
    },
  },
  { path: '/v1beta/models/mock-1:streamGenerateContent?alt=sse', body: { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] } },
  { path: '/v1beta/models/mock-1:countTokens', body: { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] } },
]
const getPaths = ['/v1/models', '/v1/models/mock-1', '/v1beta/models', '/v1beta/models/mock-1', '/v1/responses/resp_123', '/healthz']
const strange = ['', ' ', '\u0000', '\uffff', '😀'.repeat(3), '%', '%zz', '..', '/', '?', '#', ':', '*', 'a'.repeat(300)]

function makeCase(random: () => number): Case {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!
  const value = (depth = 0): unknown => {
    switch (Math.floor(random() * (depth > 3 ? 9 : 12))) {
      case 0:
        return null
      case 1:
        return random() < 0.5
      case 2:
        return pick([0, -1, 1e308, -1e308, 2 ** 53 + 1, 0.5, 1e-320, Number.MAX_SAFE_INTEGER * 1000])
      case 3:
        return pick(strange)
      case 4:
        return pick(['user', 'assistant', 'system', 'tool', 'developer', 'model', 'text', 'image', 'function', 'mock-1', 'auto'])
      case 5:
        return 'x'.repeat(Math.floor(random() * 5000))
      case 6:
        return Math.floor(random() * 100000)
      case 7:
        return -Math.floor(random() * 100)
      case 8:
        return {}
      case 9:
        return Array.from({ length: Math.floor(random() * 4) }, () => value(depth + 1))
      case 10:
        return Object.fromEntries(
          Array.from({ length: Math.floor(random() * 4) }, () => [
            pick(['type', 'text', 'role', 'content', 'parts', 'name', 'id', 'source', 'data', pick(strange)]),
            value(depth + 1),
          ]),
        )
      default:
        return [value(depth + 1)]
    }
  }
  /** Replace, remove or add something at a random place in the body's tree. */
  const mutate = (node: unknown): unknown => {
    if (node === null || typeof node !== 'object' || random() < 0.3) return value()
    if (Array.isArray(node)) {
      const copy = [...node]
      if (copy.length === 0 || random() < 0.2) copy.push(value())
      else copy[Math.floor(random() * copy.length)] = mutate(copy[Math.floor(random() * copy.length)])
      return copy
    }
    const copy: Record<string, unknown> = { ...(node as Record<string, unknown>) }
    const keys = Object.keys(copy)
    const roll = random()
    if (roll < 0.15 && keys.length > 0) delete copy[pick(keys)]
    else if (roll < 0.25) copy[pick(strange) || 'unknown'] = value()
    else if (keys.length > 0) {
      const key = pick(keys)
      copy[key] = mutate(copy[key])
    }
    return copy
  }
  const roll = random()
  if (roll < 0.08) {
    const method = pick(['GET', 'DELETE', 'PUT', 'PATCH', 'HEAD', 'OPTIONS'])
    return { method, path: pick([...getPaths, ...bases.map((base) => base.path)]) + (random() < 0.3 ? encodeURI(pick(strange)) : '') }
  }
  if (roll < 0.15) {
    const base = pick(bases).path
    const at = Math.floor(random() * base.length)
    return { method: 'POST', path: base.slice(0, at) + encodeURIComponent(pick(strange)) + base.slice(at), body: '{}' }
  }
  const base = pick(bases)
  let body = mutate(base.body) as Record<string, unknown>
  for (let more = Math.floor(random() * 3); more > 0; more--) body = mutate(body) as Record<string, unknown>
  let text = JSON.stringify(body) ?? 'null'
  if (random() < 0.1) text = text.slice(0, Math.floor(random() * text.length)) // truncated JSON
  const headers: Record<string, string> = {}
  if (random() < 0.1)
    headers['content-type'] = pick(['text/plain', 'application/x-www-form-urlencoded', 'application/json; charset=latin1', ''])
  if (random() < 0.05) headers['anthropic-version'] = pick(strange.filter((item) => /^[\x20-\x7e]*$/.test(item)))
  if (random() < 0.05) headers['anthropic-beta'] = pick(['junk', 'a,b,c', ','])
  return { method: 'POST', path: base.path, headers, body: text }
}

/** A case fetch can send (a path it cannot parse never reaches the gateway). */
function makeValidCase(random: () => number): Case {
  while (true) {
    const one = makeCase(random)
    if (URL.canParse(`http://127.0.0.1${one.path}`) && !/[\u0000-\u001f]|%(?![0-9a-f]{2})/i.test(one.path)) return one
  }
}

/** Which error shape a path's refusals must have. */
function shapeOf(path: string): 'openai' | 'anthropic' | 'gemini' {
  if (path.startsWith('/v1/messages')) return 'anthropic'
  if (path.startsWith('/v1beta/') || /^\/v1\/models\/[^/]*:/.test(path)) return 'gemini'
  return 'openai'
}

async function send(one: Case, authorized: boolean): Promise<{ status: number; text: string }> {
  const secret = authorized ? gateway.key : 'sk-wrong'
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    authorization: `Bearer ${secret}`,
    'x-api-key': secret,
    'x-goog-api-key': secret,
    'anthropic-version': '2023-06-01',
    ...one.headers,
  }
  const body = one.bodyBase64 !== undefined ? Buffer.from(one.bodyBase64, 'base64') : one.body
  const response = await fetch(gateway.url + one.path, {
    method: one.method,
    headers,
    body: one.method === 'GET' || one.method === 'HEAD' ? undefined : body,
  })
  return { status: response.status, text: await response.text() }
}

function check(one: Case, status: number, text: string, label: string): void {
  const where = `${label}: ${one.method} ${one.path} ${(one.body ?? one.bodyBase64 ?? '').slice(0, 300)} → ${status} ${text.slice(0, 300)}`
  if (status >= 500) throw new Error(`5xx for client input — ${where}`)
  if (status < 400 || one.method === 'HEAD' || (status === 405 && text === '')) return
  let json: any
  try {
    json = JSON.parse(text)
  } catch {
    throw new Error(`refusal is not JSON — ${where}`)
  }
  const path = one.path.split('?')[0]!
  // A path or method no endpoint serves has no protocol of its own: any of the three shapes will do.
  const routed =
    one.method === 'POST' ? bases.some((base) => base.path.split('?')[0] === path) : one.method === 'GET' && getPaths.includes(path)
  if (!routed && (status === 404 || status === 405)) return checkAnyShape(json, where)
  const shape = shapeOf(path)
  const ok =
    shape === 'anthropic'
      ? json?.type === 'error' && typeof json.error?.type === 'string' && typeof json.error?.message === 'string'
      : shape === 'gemini'
        ? typeof json?.error?.code === 'number' && typeof json.error?.message === 'string' && typeof json.error?.status === 'string'
        : typeof json?.error?.message === 'string' && typeof json.error?.type === 'string'
  if (!ok) throw new Error(`refusal not in the ${shape} error shape — ${where}`)
}

function checkAnyShape(json: any, where: string): void {
  const message = json?.error?.message
  if (typeof message !== 'string') throw new Error(`refusal has no error message — ${where}`)
}

async function runAll(list: { one: Case; label: string; authorized: boolean }[]): Promise<string[]> {
  const failures: string[] = []
  let next = 0
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next < list.length) {
        const { one, label, authorized } = list[next++]!
        try {
          const { status, text } = await send(one, authorized)
          check(one, status, text, label)
        } catch (error) {
          // A path fetch itself will not send never reached the gateway: nothing to check.
          if ((error as Error).message === 'fetch() URL is invalid') continue
          failures.push((error as Error).message)
        }
      }
    }),
  )
  return failures
}

test('the corpus of past breakers gets 4xx in the protocol shape, never a 5xx', async () => {
  const folder = join(import.meta.dir, 'fixtures/fuzz-corpus')
  const list = readdirSync(folder)
    .filter((name) => name.endsWith('.json'))
    .sort()
    .flatMap((name) => {
      const one = JSON.parse(readFileSync(join(folder, name), 'utf8')) as Case
      return [
        { one, label: name, authorized: true },
        { one, label: `${name} (wrong key)`, authorized: false },
      ]
    })
  expect(list.length).toBeGreaterThan(20)
  expect(await runAll(list)).toEqual([])
}, 30_000)

test(`${cases} generated requests (seed ${seed}) over every endpoint: never a 5xx, refusals in the protocol shape`, async () => {
  const random = generator(seed)
  const list = Array.from({ length: cases }, (_, index) => ({
    one: makeValidCase(random),
    label: `seed ${seed} case ${index}`,
    authorized: random() < 0.95,
  }))
  const started = performance.now()
  const failures = await runAll(list)
  console.log(`fuzz: ${cases} cases in ${((performance.now() - started) / 1000).toFixed(1)} s, ${failures.length} failures`)
  expect(failures.slice(0, 10)).toEqual([])
  // Still alive and serving.
  expect((await fetch(`${gateway.url}/healthz`)).status).toBe(200)
}, 60_000)
