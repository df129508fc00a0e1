import { overHttp, type UpstreamFactories } from '../../../providers/upstreams.ts'
import { createMockRerankUpstream } from './mock.ts'
import { createOpenAiRerankUpstream } from './openai.ts'

/**
 * Rerank toward every kind of upstream that has it (providers/registry.ts): OpenAI-kind servers that serve `/rerank`
 * (vLLM), and the mock. A model of kind rerank routed to another kind is refused when the config is loaded.
 */
export const rerankUpstreams: UpstreamFactories = {
  openai: overHttp(createOpenAiRerankUpstream),
  mock: () => createMockRerankUpstream(),
}
