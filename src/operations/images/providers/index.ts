import { overHttp, type UpstreamFactories } from '../../../providers/upstreams.ts'
import { createMockImagesUpstream } from './mock.ts'
import { createOpenAiImagesUpstream } from './openai.ts'

/**
 * Images toward every kind of upstream that makes them (providers/registry.ts): OpenAI and compatible servers, and
 * the mock. A model of kind image routed to another kind is refused when the config is loaded.
 */
export const imagesUpstreams: UpstreamFactories = {
  openai: overHttp(createOpenAiImagesUpstream),
  mock: () => createMockImagesUpstream(),
}
