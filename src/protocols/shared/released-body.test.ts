import { describe, expect, test } from 'bun:test'
import { parseConfig } from '../../config/load.ts'
import type { Target } from '../../core/provider.ts'
import { GatewayError } from '../../core/errors.ts'
import { anthropicMessages } from '../../operations/chat/protocols/anthropic/protocol.ts'
import { geminiGenerate } from '../../operations/chat/protocols/gemini/protocol.ts'
import { openAiChat } from '../../operations/chat/protocols/openai-chat/protocol.ts'
import type { Json } from './validate.ts'

const config = parseConfig({
  providers: [{ name: 'upstream', type: 'openai', base_url: 'http://127.0.0.1:1/v1', api_key: 'k' }],
  models: [{ id: 'm', provider: 'upstream', upstream_model: 'real-m', price: { input: 1, output: 2 }, max_output_tokens: 1000 }],
})
const target: Target = { provider: config.providers[0]!, upstreamModel: 'real-m', model: config.models[0]! }

/** Each passthrough protocol's exchange, from a streamed request as its client sends it. */
const exchanges = {
  'openai-chat': () => {
    const body: Json = { model: 'm', stream: true, messages: [{ role: 'user', content: 'hi' }] }
    return openAiChat.decode(body, JSON.stringify(body), new Request('http://gateway/v1/chat/completions'), 'req_1')
  },
  anthropic: () => {
    const body: Json = { model: 'm', stream: true, max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }
    return anthropicMessages.decode(body, JSON.stringify(body), new Request('http://gateway/v1/messages'), 'req_1')
  },
  gemini: () => {
    const body: Json = { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }
    const request = new Request('http://gateway/v1beta/models/m:streamGenerateContent?alt=sse')
    return geminiGenerate.decode(body, JSON.stringify(body), request, 'req_1')
  },
}

describe('an exchange lets go of the client body once the answer has begun', () => {
  for (const [name, make] of Object.entries(exchanges)) {
    test(`${name}: forwards before, and refuses to forward after, rather than sending an empty body`, () => {
      const exchange = make()
      expect(exchange.forward!(target).body).toContain('hi')
      exchange.answerBegun!()
      expect(() => exchange.forward!(target)).toThrow(GatewayError)
      // What the stream still needs stays: the IR request (the meter's estimate) and the protocol's error event.
      expect(exchange.request.model).toBeDefined()
    })
  }
})
