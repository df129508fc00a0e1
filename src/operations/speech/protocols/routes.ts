import { defineProtocol } from '../../../protocols/shared/define-protocol.ts'
import type { ProtocolRoutes } from '../../../protocols/shared/route-table.ts'
import { openAiSpeech } from './openai/protocol.ts'

/** POST /v1/audio/speech (OpenAI's clients). */
const createSpeech = defineProtocol(openAiSpeech)

export const speechRoutes: ProtocolRoutes = (services) => ({
  '/v1/audio/speech': { POST: (request) => createSpeech(services, request) },
})
