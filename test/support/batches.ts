import { startAnthropicUpstream, upstreamKey } from './anthropic-upstream.ts'
import { startTestGateway, type TestGateway, type TestGatewayOptions } from './gateway.ts'
import { startGeminiUpstream } from './gemini-upstream.ts'
import { chatCompletion, startOpenAiUpstream } from './openai-upstream.ts'
import { jsonReply, startUpstream, type TestUpstream } from './upstream.ts'

/**
 * A gateway with one chat model on each upstream kind (loopback servers), each with a batch price half its live
 * price, for the batch tests. Upstream usage is fixed per kind (see the upstream fakes), so costs are exact.
 */
export interface BatchSetup {
  gateway: TestGateway
  upstreams: { openai: TestUpstream; anthropic: TestUpstream; gemini: TestUpstream }
  stop(): Promise<void>
}

export async function startBatchSetup(
  options: TestGatewayOptions & { tasks?: Record<string, unknown>; limits?: Record<string, unknown>; extraModels?: unknown[] } = {},
): Promise<BatchSetup> {
  const openai = startOpenAiUpstream()
  const anthropic = startAnthropicUpstream()
  const gemini = startGeminiUpstream()
  const slow = startUpstream(async (request) => {
    await Bun.sleep(200)
    return jsonReply(chatCompletion(request))
  })
  const gateway = await startTestGateway({
    ...options,
    config: {
      providers: [
        { name: 'openai-up', type: 'openai', base_url: `${openai.url}/v1`, api_key: 'upstream-secret' },
        { name: 'claude-up', type: 'anthropic', base_url: anthropic.url, api_key: upstreamKey },
        { name: 'gemini-up', type: 'gemini', base_url: gemini.url, api_key: 'gemini-secret' },
        { name: 'mock', type: 'mock' },
        { name: 'slow-up', type: 'openai', base_url: `${slow.url}/v1` },
        { name: 'broken-up', type: 'openai', base_url: `${openai.url}/missing`, api_key: 'upstream-secret' },
      ],
      models: [
        {
          id: 'gpt-up',
          provider: 'openai-up',
          upstream_model: 'gpt-x',
          price: { input: 2, output: 4, cached_input: 1, batch: { input: 1, output: 2 } },
          max_output_tokens: 256,
        },
        {
          id: 'claude-up',
          provider: 'claude-up',
          upstream_model: 'claude-x',
          price: { input: 3, output: 15, batch: { input: 1.5, output: 7.5 } },
          max_output_tokens: 256,
        },
        {
          id: 'gemini-up',
          provider: 'gemini-up',
          upstream_model: 'gemini-2.5-flash',
          price: { input: 1.25, output: 10, batch: { input: 0.625, output: 5 } },
          max_output_tokens: 256,
        },
        { id: 'mock-1', provider: 'mock', price: { input: 1, output: 2 }, max_output_tokens: 256 },
        { id: 'gpt-slow', provider: 'slow-up', upstream_model: 'gpt-x', price: { input: 1, output: 2 }, max_output_tokens: 256 },
        { id: 'gpt-broken', provider: 'broken-up', upstream_model: 'gpt-x', price: { input: 1, output: 2 }, max_output_tokens: 256 },
        ...(options.extraModels ?? []),
      ],
      ...(options.tasks && { tasks: options.tasks }),
      ...(options.limits && { limits: options.limits }),
    },
  })
  return {
    gateway,
    upstreams: { openai, anthropic, gemini },
    async stop() {
      await gateway.stop()
      await Promise.all([openai.stop(), anthropic.stop(), gemini.stop(), slow.stop()])
    },
  }
}

/** Poll `read` until `done` says so (the SDKs have no polling helper), failing after `timeoutMs`. */
export async function pollUntil<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  while (true) {
    const value = await read()
    if (done(value)) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting; last: ${JSON.stringify(value)}`)
    await Bun.sleep(50)
  }
}

/** JSONL text from objects. */
export const jsonl = (lines: unknown[]) => lines.map((line) => JSON.stringify(line)).join('\n') + '\n'
