import { overHttp, type UpstreamFactories } from '../../../providers/upstreams.ts'
import { createMockTranscriptionUpstream } from './mock.ts'
import { createOpenAiTranscriptionUpstream } from './openai.ts'

/** Transcription toward every kind of upstream that has it (providers/registry.ts): OpenAI-compatible servers and the mock. */
export const transcriptionUpstreams: UpstreamFactories = {
  openai: overHttp(createOpenAiTranscriptionUpstream),
  mock: () => createMockTranscriptionUpstream(),
}
