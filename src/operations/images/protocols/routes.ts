import { defineProtocol } from '../../../protocols/shared/define-protocol.ts'
import type { ProtocolRoutes } from '../../../protocols/shared/route-table.ts'
import { openAiImageEdits, openAiImageGenerations } from './openai/protocol.ts'

/** POST /v1/images/generations (OpenAI's clients). */
const createImages = defineProtocol(openAiImageGenerations)

/** POST /v1/images/edits (a multipart form). */
const editImages = defineProtocol(openAiImageEdits)

export const imagesRoutes: ProtocolRoutes = (services) => ({
  '/v1/images/generations': { POST: (request) => createImages(services, request) },
  '/v1/images/edits': { POST: (request) => editImages(services, request) },
})
