import { overHttp, type UpstreamFactories } from '../../../providers/upstreams.ts'
import { createMockSpeechUpstream } from './mock.ts'
import { createOpenAiSpeechUpstream } from './openai.ts'

/** Speech toward every kind of upstream that has it (providers/registry.ts): OpenAI-compatible servers and the mock. */
export const speechUpstreams: UpstreamFactories = {
  openai: overHttp(createOpenAiSpeechUpstream),
  mock: () => createMockSpeechUpstream(),
}
