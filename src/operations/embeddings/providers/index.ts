import { overHttp, type UpstreamFactories } from '../../../providers/upstreams.ts'
import { geminiEmbeddingsCodec } from './gemini.ts'
import { createHttpEmbeddingsUpstream } from './http.ts'
import { createMockEmbeddingsUpstream } from './mock.ts'
import { openAiEmbeddingsCodec } from './openai.ts'

/**
 * Embeddings toward every kind of upstream that has them (providers/registry.ts). Anthropic has no embeddings: a
 * model of kind embedding routed to an Anthropic provider is refused when the config is loaded.
 */
export const embeddingsUpstreams: UpstreamFactories = {
  openai: overHttp((transport) => createHttpEmbeddingsUpstream(transport, openAiEmbeddingsCodec)),
  gemini: overHttp((transport) => createHttpEmbeddingsUpstream(transport, geminiEmbeddingsCodec)),
  mock: (site) => createMockEmbeddingsUpstream(site.config),
}
