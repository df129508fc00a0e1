import { defineProtocol } from '../../../protocols/shared/define-protocol.ts'
import type { ProtocolRoutes } from '../../../protocols/shared/route-table.ts'
import { openAiTranscriptions, openAiTranslations } from './openai/protocol.ts'

const createTranscription = defineProtocol(openAiTranscriptions)
const createTranslation = defineProtocol(openAiTranslations)

export const transcriptionRoutes: ProtocolRoutes = (services) => ({
  '/v1/audio/transcriptions': { POST: (request) => createTranscription(services, request) },
  '/v1/audio/translations': { POST: (request) => createTranslation(services, request) },
})
