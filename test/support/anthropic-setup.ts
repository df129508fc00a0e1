import { startAnthropicUpstream, upstreamKey } from './anthropic-upstream.ts'
import { startTestGateway, type TestGateway } from './gateway.ts'
import { startOpenAiUpstream } from './openai-upstream.ts'
import type { TestUpstream } from './upstream.ts'

/** Anthropic prices per million tokens: $3 input, $0.30 cache read, $3.75 cache write, $15 output. */
export const claudePrice = { input: 3, output: 15, cached_input: 0.3, cache_write: 3.75 }

export interface AnthropicSetup {
  gateway: TestGateway
  openAiUpstream: TestUpstream
  anthropicUpstream: TestUpstream
  stop(): Promise<void>
}

/**
 * A gateway in front of every kind of upstream an Anthropic client may reach: the mock, an OpenAI-compatible
 * server (translated), and an Anthropic server both forwarded byte for byte (`claude-pass`) and through the IR
 * (`claude-ir`, passthrough off); `claude-same` has the same id upstream, so nothing needs rewriting. `*-overloaded` and `*-midstream` models reach the Anthropic server's faults.
 */
export async function startAnthropicSetup(): Promise<AnthropicSetup> {
  const openAiUpstream = startOpenAiUpstream()
  const anthropicUpstream = startAnthropicUpstream()
  const claude = (id: string, provider: string, upstreamModel = 'claude-real') => ({
    id,
    provider,
    upstream_model: upstreamModel,
    price: claudePrice,
    max_output_tokens: 2048,
  })
  const gateway = await startTestGateway({
    config: {
      providers: [
        { name: 'mock', type: 'mock' },
        { name: 'openai-up', type: 'openai', base_url: `${openAiUpstream.url}/v1`, api_key: 'upstream-secret' },
        { name: 'claude-up', type: 'anthropic', base_url: anthropicUpstream.url, api_key: upstreamKey },
        { name: 'claude-up-ir', type: 'anthropic', base_url: anthropicUpstream.url, api_key: upstreamKey, passthrough: false },
      ],
      models: [
        { id: 'mock-1', provider: 'mock', price: { input: 1, output: 2, cached_input: 0.1 }, max_output_tokens: 4096 },
        {
          id: 'gpt-up',
          provider: 'openai-up',
          upstream_model: 'real-gpt',
          price: { input: 1.25, output: 10, cached_input: 0.125 },
          max_output_tokens: 256,
        },
        claude('claude-pass', 'claude-up'),
        claude('claude-ir', 'claude-up-ir'),
        claude('claude-same', 'claude-up', 'claude-same'),
        claude('claude-pass-overloaded', 'claude-up', 'fail-overloaded'),
        claude('claude-ir-overloaded', 'claude-up-ir', 'fail-overloaded'),
        claude('claude-pass-midstream', 'claude-up', 'fail-midstream'),
        claude('claude-ir-midstream', 'claude-up-ir', 'fail-midstream'),
      ],
    },
  })
  return {
    gateway,
    openAiUpstream,
    anthropicUpstream,
    async stop() {
      await gateway.stop()
      await openAiUpstream.stop()
      await anthropicUpstream.stop()
    },
  }
}
