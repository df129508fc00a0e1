import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import OpenAI from 'openai'
import { startTestGateway, type TestGateway } from './support/gateway.ts'
import { handleOpenAi } from './support/openai-upstream.ts'
import { jsonReply, startUpstream, type TestUpstream } from './support/upstream.ts'
import type { Logger } from '../src/core/logger.ts'
import { parseConfig } from '../src/config/load.ts'

/**
 * Traces over OTLP/HTTP: a real collector stand-in on loopback records what the gateway exports, while the official
 * OpenAI SDK sends requests (with its own W3C traceparent) through the gateway to a real upstream.
 */

interface OtlpSpan {
  traceId: string
  spanId: string
  parentSpanId?: string
  name: string
  kind: number
  startTimeUnixNano: string
  endTimeUnixNano: string
  attributes: { key: string; value: Record<string, unknown> }[]
  status: { code: number }
}

/** A stand-in OTLP collector: records every POST /v1/traces (raw body and parsed spans). */
function startCollector() {
  const collector = {
    bodies: [] as string[],
    headers: [] as Record<string, string>[],
    spans: [] as OtlpSpan[],
    resources: [] as unknown[],
    server: Bun.serve({
      hostname: '127.0.0.1',
      port: 0,
      async fetch(request) {
        const body = await request.text()
        if (request.method !== 'POST' || new URL(request.url).pathname !== '/v1/traces') return new Response('no', { status: 404 })
        collector.bodies.push(body)
        collector.headers.push(Object.fromEntries(request.headers))
        for (const resourceSpans of JSON.parse(body).resourceSpans) {
          collector.resources.push(resourceSpans.resource)
          for (const scopeSpans of resourceSpans.scopeSpans) collector.spans.push(...scopeSpans.spans)
        }
        return Response.json({})
      },
    }),
  }
  return collector
}

/** An attribute's value as JS: strings, numbers (OTLP ints are strings), booleans, string arrays. */
function attributesOf(span: OtlpSpan): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const { key, value } of span.attributes) {
    if ('stringValue' in value) out[key] = value.stringValue
    else if ('intValue' in value) out[key] = Number(value.intValue)
    else if ('doubleValue' in value) out[key] = value.doubleValue
    else if ('boolValue' in value) out[key] = value.boolValue
    else out[key] = (value.arrayValue as { values: { stringValue: string }[] }).values.map((item) => item.stringValue)
  }
  return out
}

/** The spans of one trace once its request's SERVER span has arrived (exports go every second). */
async function spansOf(collector: ReturnType<typeof startCollector>, traceId: string, timeoutMs = 5000): Promise<OtlpSpan[]> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    const spans = collector.spans.filter((span) => span.traceId === traceId)
    if (spans.some((span) => span.kind === 2)) return spans
    await Bun.sleep(50)
  }
  throw new Error(`no server span for trace ${traceId}`)
}

const prompt = 'The secret recipe is forty-two lemons'
const clientTrace = () => ({ traceId: crypto.randomUUID().replace(/-/g, ''), spanId: crypto.randomUUID().replace(/-/g, '').slice(0, 16) })

function capturingLogger(lines: Record<string, unknown>[]): Logger {
  const log = (fields: Record<string, unknown>, message: string) => void lines.push({ ...fields, msg: message })
  return { info: log, warn: log, error: log }
}

const models = [
  { id: 'gpt', provider: 'up', upstream_model: 'gpt-upstream', price: { input: 1, output: 2 } },
  { id: 'gpt-ir', provider: 'up-ir', upstream_model: 'gpt-upstream-ir', price: { input: 1, output: 2 } },
  { id: 'flaky', provider: 'up', upstream_model: 'flaky-upstream', price: { input: 1, output: 2 } },
  { id: 'embed', kind: 'embedding', provider: 'mock', upstream_model: 'embed-upstream', price: { input: 1 } },
]

describe('telemetry on', () => {
  let collector: ReturnType<typeof startCollector>
  let upstream: TestUpstream
  let gateway: TestGateway
  const lines: Record<string, unknown>[] = []
  let flakyFailures = 0

  beforeAll(async () => {
    collector = startCollector()
    const answer = handleOpenAi()
    upstream = startUpstream((request, raw) => {
      if (request.body?.model === 'flaky-upstream' && flakyFailures-- > 0)
        return jsonReply({ error: { message: 'overloaded', type: 'server_error' } }, 500)
      return answer(request, raw)
    })
    gateway = await startTestGateway({
      logger: capturingLogger(lines),
      config: {
        telemetry: {
          otlp_endpoint: `http://127.0.0.1:${collector.server.port}`,
          service_name: 'tollgate-test',
          headers: { 'x-collector-token': 'collector-secret' },
        },
        routing: { backoff_ms: 1, min_requests: 1000 },
        providers: [
          { name: 'up', type: 'openai', base_url: `${upstream.url}/v1`, api_key: 'sk-upstream-secret' },
          { name: 'up-ir', type: 'openai', base_url: `${upstream.url}/v1`, api_key: 'sk-upstream-secret', passthrough: false },
          { name: 'mock', type: 'mock' },
        ],
        models,
      },
    })
  })

  afterAll(async () => {
    await gateway.stop()
    await upstream.stop()
    collector.server.stop(true)
  })

  const cases = [
    { name: 'a whole answer, forwarded as it came (passthrough)', model: 'gpt', upstreamModel: 'gpt-upstream', stream: false },
    { name: 'a streamed answer, forwarded as it came (passthrough)', model: 'gpt', upstreamModel: 'gpt-upstream', stream: true },
    { name: 'a whole answer, translated', model: 'gpt-ir', upstreamModel: 'gpt-upstream-ir', stream: false },
    { name: 'a streamed answer, translated', model: 'gpt-ir', upstreamModel: 'gpt-upstream-ir', stream: true },
  ]

  test.each(cases)(
    "$name: a SERVER span in the client's trace with the GenAI attributes, an attempt span, traceparent upstream",
    async ({ model, upstreamModel, stream }) => {
      const parent = clientTrace()
      const client = new OpenAI({
        baseURL: gateway.baseUrl,
        apiKey: gateway.key,
        maxRetries: 0,
        defaultHeaders: { traceparent: `00-${parent.traceId}-${parent.spanId}-01` },
      })
      const before = upstream.requests.length
      const params = { model, max_tokens: 50, temperature: 0.5, messages: [{ role: 'user' as const, content: prompt }] }
      if (stream) {
        const chunks = await client.chat.completions.create({ ...params, stream: true, stream_options: { include_usage: true } })
        let text = ''
        for await (const chunk of chunks) text += chunk.choices[0]?.delta?.content ?? ''
        expect(text).toBe('Hello from upstream')
      } else {
        const completion = await client.chat.completions.create(params)
        expect(completion.choices[0]!.message.content).toBe('Hello from upstream')
      }

      const spans = await spansOf(collector, parent.traceId)
      const server = spans.find((span) => span.kind === 2)!
      const attempts = spans.filter((span) => span.kind === 3)
      expect(server.name).toBe(`chat ${model}`)
      expect(server.parentSpanId).toBe(parent.spanId)
      expect(server.status.code).toBe(0)
      const logged = lines.filter((entry) => entry.msg === 'request').at(-1)!
      expect(attributesOf(server)).toEqual({
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'openai',
        'gen_ai.system': 'openai',
        'gen_ai.request.model': model,
        'gen_ai.response.model': upstreamModel,
        'gen_ai.request.max_tokens': 50,
        'gen_ai.request.temperature': 0.5,
        'gen_ai.usage.input_tokens': 11,
        'gen_ai.usage.output_tokens': 7,
        'gen_ai.usage.cache_read.input_tokens': 3,
        'gen_ai.response.finish_reasons': ['stop'],
        'tollgate.request_id': logged.request_id,
        'tollgate.key_id': gateway.keyRecord.id,
        'tollgate.account_id': gateway.account.id,
        'tollgate.protocol': 'openai-chat',
        'tollgate.stream': stream,
        'tollgate.status_code': 200,
        'tollgate.attempts': 1,
        'tollgate.cost_usd': '0.000025',
        'tollgate.estimated': false,
      })
      expect(BigInt(server.endTimeUnixNano)).toBeGreaterThan(BigInt(server.startTimeUnixNano))

      expect(attempts).toHaveLength(1)
      const attempt = attempts[0]!
      expect(attempt.parentSpanId).toBe(server.spanId)
      expect(attempt.name).toBe(`chat ${upstreamModel}`)
      expect(attributesOf(attempt)).toMatchObject({
        'tollgate.route': expect.stringContaining(upstreamModel),
        'tollgate.status_code': 200,
        'tollgate.attempt.result': 'ok',
        'tollgate.attempt': 1,
      })
      // The upstream joins the same trace, as the attempt's child.
      const sent = upstream.requests.slice(before)
      expect(sent).toHaveLength(1)
      expect(sent[0]!.headers.traceparent).toBe(`00-${parent.traceId}-${attempt.spanId}-01`)
    },
  )

  test('an embeddings request: spans named for its operation, with the GenAI embeddings attributes', async () => {
    const parent = clientTrace()
    const client = new OpenAI({
      baseURL: gateway.baseUrl,
      apiKey: gateway.key,
      maxRetries: 0,
      defaultHeaders: { traceparent: `00-${parent.traceId}-${parent.spanId}-01` },
    })
    await client.embeddings.create({ model: 'embed', input: ['twelve chars', 'eight ch'], dimensions: 16 })
    const spans = await spansOf(collector, parent.traceId)
    const server = spans.find((span) => span.kind === 2)!
    expect(server.name).toBe('embeddings embed')
    expect(spans.find((span) => span.kind === 3)!.name).toBe('embeddings embed-upstream')
    expect(attributesOf(server)).toMatchObject({
      'gen_ai.operation.name': 'embeddings',
      'gen_ai.request.model': 'embed',
      'gen_ai.embeddings.dimension.count': 16,
      'gen_ai.request.encoding_formats': ['base64'],
      'gen_ai.usage.input_tokens': 5,
      'gen_ai.usage.output_tokens': 0,
      'tollgate.protocol': 'openai-embeddings',
    })
    expect(attributesOf(server)['gen_ai.response.finish_reasons']).toBeUndefined()
  })

  test('a retried request has two attempt spans: the failure with its reason, then the answer', async () => {
    flakyFailures = 1
    const parent = clientTrace()
    const client = new OpenAI({
      baseURL: gateway.baseUrl,
      apiKey: gateway.key,
      maxRetries: 0,
      defaultHeaders: { traceparent: `00-${parent.traceId}-${parent.spanId}-01` },
    })
    const before = upstream.requests.length
    await client.chat.completions.create({ model: 'flaky', messages: [{ role: 'user', content: prompt }] })
    const spans = await spansOf(collector, parent.traceId)
    const server = spans.find((span) => span.kind === 2)!
    expect(attributesOf(server)['tollgate.attempts']).toBe(2)
    const attempts = spans
      .filter((span) => span.kind === 3)
      .sort((a, b) => (attributesOf(a)['tollgate.attempt'] as number) - (attributesOf(b)['tollgate.attempt'] as number))
    expect(attempts).toHaveLength(2)
    expect(attempts.map((span) => span.parentSpanId)).toEqual([server.spanId, server.spanId])
    expect(attributesOf(attempts[0]!)).toMatchObject({
      'tollgate.attempt': 1,
      'tollgate.status_code': 502,
      'error.type': 'upstream',
      'tollgate.attempt.result': 'upstream',
    })
    expect(attempts[0]!.status.code).toBe(2)
    expect(attributesOf(attempts[1]!)).toMatchObject({
      'tollgate.attempt': 2,
      'tollgate.status_code': 200,
      'tollgate.attempt.result': 'ok',
    })
    // Each attempt told the upstream its own span.
    expect(upstream.requests.slice(before).map((request) => request.headers.traceparent)).toEqual(
      attempts.map((span) => `00-${parent.traceId}-${span.spanId}-01`),
    )
  })

  test('a request without a traceparent starts a trace of its own; a refused one is traced as the refusal', async () => {
    const client = new OpenAI({ baseURL: gateway.baseUrl, apiKey: gateway.key, maxRetries: 0 })
    await client.chat.completions.create({ model: 'gpt', messages: [{ role: 'user', content: 'hi' }] })
    const requestId = lines.filter((entry) => entry.msg === 'request').at(-1)!.request_id
    const traceId = await waitFor(
      () => collector.spans.find((span) => span.kind === 2 && attributesOf(span)['tollgate.request_id'] === requestId)?.traceId,
    )
    expect(traceId).toMatch(/^[\da-f]{32}$/)
    expect((await spansOf(collector, traceId)).find((span) => span.kind === 2)!.parentSpanId).toBeUndefined()

    const parent = clientTrace()
    const traced = new OpenAI({
      baseURL: gateway.baseUrl,
      apiKey: gateway.key,
      maxRetries: 0,
      defaultHeaders: { traceparent: `00-${parent.traceId}-${parent.spanId}-01` },
    })
    const refusal = await traced.chat.completions
      .create({ model: 'no-such-model', messages: [{ role: 'user', content: 'hi' }] })
      .catch((error) => error)
    expect(refusal.status).toBe(404)
    const refused = (await spansOf(collector, parent.traceId)).find((span) => span.kind === 2)!
    expect(attributesOf(refused)).toMatchObject({ 'tollgate.status_code': 404, 'error.type': 'model_not_found', 'tollgate.attempts': 0 })
  })

  // ISSUE 22: a 2 MB model name went into the refused request's span whole (its usage row cut it to 128 characters).
  test("a refused request's model name is cut in its span as in its usage row", async () => {
    const parent = clientTrace()
    const traced = new OpenAI({
      baseURL: gateway.baseUrl,
      apiKey: gateway.key,
      maxRetries: 0,
      defaultHeaders: { traceparent: `00-${parent.traceId}-${parent.spanId}-01` },
    })
    const model = `huge-${'m'.repeat(2 * 1024 * 1024)}`
    expect(
      (await traced.chat.completions.create({ model, messages: [{ role: 'user', content: 'hi' }] }).catch((error) => error)).status,
    ).toBe(404)
    const refused = (await spansOf(collector, parent.traceId)).find((span) => span.kind === 2)!
    expect(attributesOf(refused)['gen_ai.request.model']).toBe(model.slice(0, 128))
    expect(refused.name).toBe(`chat ${model.slice(0, 128)}`)
    await gateway.gateway.services.ledger.drain()
    const row = (await gateway.gateway.services.store.usage.listRequests({}, 1))[0]!
    expect(row.model).toBe(model.slice(0, 128))
  })

  test("a client's unsampled trace is not traced, and its traceparent goes upstream as it came", async () => {
    const parent = clientTrace()
    const traceparent = `00-${parent.traceId}-${parent.spanId}-00`
    const client = new OpenAI({ baseURL: gateway.baseUrl, apiKey: gateway.key, maxRetries: 0, defaultHeaders: { traceparent } })
    await client.chat.completions.create({ model: 'gpt', messages: [{ role: 'user', content: 'hi' }] })
    expect(upstream.requests.at(-1)!.headers.traceparent).toBe(traceparent)
    await gateway.gateway.services.telemetry!.flush()
    expect(collector.spans.filter((span) => span.traceId === parent.traceId)).toEqual([])
  })

  test('exports carry the service name and the configured headers, never a prompt, a key or an upstream secret', async () => {
    await gateway.gateway.services.telemetry!.flush()
    expect(collector.headers.every((headers) => headers['x-collector-token'] === 'collector-secret')).toBe(true)
    expect(collector.resources[0]).toEqual({
      attributes: expect.arrayContaining([{ key: 'service.name', value: { stringValue: 'tollgate-test' } }]),
    })
    const everything = collector.bodies.join('\n')
    expect(everything).not.toContain('lemons')
    expect(everything).not.toContain(gateway.key)
    expect(everything).not.toContain('sk-upstream-secret')
    expect(everything).not.toContain('overloaded') // an upstream's error text may quote the prompt
  })

  test('the request log line carries the cost in dollars, exactly', async () => {
    const client = new OpenAI({ baseURL: gateway.baseUrl, apiKey: gateway.key, maxRetries: 0 })
    await client.chat.completions.create({ model: 'gpt', messages: [{ role: 'user', content: 'hi' }] })
    const line = lines.filter((entry) => entry.msg === 'request').at(-1)!
    expect(line.cost).toBe(25_000)
    expect(line.cost_usd).toBe('0.000025')
  })

  test('/metrics counts the spans exported', async () => {
    await gateway.gateway.services.telemetry!.flush()
    const metrics = await (await fetch(`${gateway.url}/metrics`)).text()
    expect(Number(/tollgate_trace_spans_exported_total (\d+)/.exec(metrics)![1])).toBeGreaterThan(10)
    expect(metrics).toContain('tollgate_trace_spans_dropped_total 0')
  })
})

async function waitFor<T>(read: () => T | undefined, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    const value = read()
    if (value !== undefined) return value
    await Bun.sleep(50)
  }
  throw new Error('timed out')
}

describe('telemetry off', () => {
  test('no span, no export, and no traceparent upstream, even when the client sends one', async () => {
    const collector = startCollector()
    const upstream = startUpstream(handleOpenAi())
    const gateway = await startTestGateway({
      config: { providers: [{ name: 'up', type: 'openai', base_url: `${upstream.url}/v1` }], models: [models[0]!] },
    })
    try {
      expect(gateway.gateway.services.relay.tracer).toBeUndefined()
      const parent = clientTrace()
      const client = new OpenAI({
        baseURL: gateway.baseUrl,
        apiKey: gateway.key,
        maxRetries: 0,
        defaultHeaders: { traceparent: `00-${parent.traceId}-${parent.spanId}-01` },
      })
      await client.chat.completions.create({ model: 'gpt', messages: [{ role: 'user', content: 'hi' }] })
      expect(upstream.requests[0]!.headers.traceparent).toBeUndefined()
      await Bun.sleep(1200) // past an export interval
      expect(collector.bodies).toEqual([])
      expect(await (await fetch(`${gateway.url}/metrics`)).text()).not.toContain('tollgate_trace_spans')
    } finally {
      await gateway.stop()
      await upstream.stop()
      collector.server.stop(true)
    }
  })
})

describe('a collector that is down or hung', () => {
  test.each(['refusing connections', 'never answering'])(
    '%s: requests are neither slowed nor failed, and lost spans are counted',
    async (mode) => {
      let endpoint: string
      let stopCollector: () => void
      if (mode === 'refusing connections') {
        const closed = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response('') })
        endpoint = `http://127.0.0.1:${closed.port}`
        closed.stop(true)
        stopCollector = () => {}
      } else {
        // Accepts the connection, reads the request, never answers.
        const hung = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } })
        endpoint = `http://127.0.0.1:${hung.port}`
        stopCollector = () => hung.stop(true)
      }
      const upstream = startUpstream(handleOpenAi())
      const gateway = await startTestGateway({
        config: {
          telemetry: { otlp_endpoint: endpoint },
          providers: [{ name: 'up', type: 'openai', base_url: `${upstream.url}/v1` }],
          models: [models[0]!],
        },
      })
      try {
        const client = new OpenAI({ baseURL: gateway.baseUrl, apiKey: gateway.key, maxRetries: 0 })
        const started = performance.now()
        for (let round = 0; round < 3; round++) {
          await Promise.all(
            Array.from({ length: 10 }, () => client.chat.completions.create({ model: 'gpt', messages: [{ role: 'user', content: 'hi' }] })),
          )
          await Bun.sleep(600) // exports are tried while requests run
        }
        // 30 requests on loopback, 1.8 s of it sleeping: an export in the way would add seconds (a hung one, its timeout).
        expect(performance.now() - started).toBeLessThan(3500)
        if (mode === 'refusing connections') {
          await waitFor(() => (gateway.gateway.services.telemetry!.dropped >= 60 ? true : undefined))
          const metrics = await (await fetch(`${gateway.url}/metrics`)).text()
          expect(metrics).toContain('tollgate_trace_spans_dropped_total 60')
          expect(metrics).toContain('tollgate_trace_spans_exported_total 0')
        }
        // A shutdown does not wait on the collector longer than its bound.
        const stopping = performance.now()
        await gateway.stop()
        expect(performance.now() - stopping).toBeLessThan(5000)
      } finally {
        await upstream.stop()
        stopCollector()
      }
    },
  )
})

describe('telemetry config', () => {
  const base = { providers: [{ name: 'mock', type: 'mock' }], models: [] }
  test('a base endpoint gets /v1/traces; one that names it is kept; defaults fill the rest', () => {
    expect(parseConfig({ ...base, telemetry: { otlp_endpoint: 'http://collector:4318/' } }).telemetry).toEqual({
      tracesUrl: 'http://collector:4318/v1/traces',
      serviceName: 'tollgate',
      headers: {},
      sampleRatio: 1,
    })
    expect(
      parseConfig({ ...base, telemetry: { otlp_endpoint: 'https://otlp.example/v1/traces', sample_ratio: 0.1 } }).telemetry?.tracesUrl,
    ).toBe('https://otlp.example/v1/traces')
    expect(parseConfig(base).telemetry).toBeUndefined()
  })

  test('mistakes are refused with the field named', () => {
    expect(() => parseConfig({ ...base, telemetry: {} })).toThrow('telemetry.otlp_endpoint')
    expect(() => parseConfig({ ...base, telemetry: { otlp_endpoint: 'collector:4318' } })).toThrow('telemetry.otlp_endpoint')
    expect(() => parseConfig({ ...base, telemetry: { otlp_endpoint: 'http://c:4318', sample_ratio: 2 } })).toThrow('telemetry.sample_ratio')
    expect(() => parseConfig({ ...base, telemetry: { otlp_endpoint: 'http://c:4318', sampling: 1 } })).toThrow('telemetry')
  })
})
