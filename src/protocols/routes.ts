import type { Services } from '../edge/services.ts'
import { anthropicRoutes } from './anthropic/index.ts'
import { geminiRoutes } from './gemini/index.ts'
import { serveModels } from './models.ts'
import { openAiChatRoutes } from './openai-chat/index.ts'
import { openAiResponsesRoutes } from '../operations/chat/protocols/openai-responses/index.ts'
import { mergeRoutes, type RouteTable } from './shared/route-table.ts'
import { openAiFileRoutes } from './openai-chat/files.ts'
import { batchRoutes } from './batch-routes.ts'
import { anthropicBatchRoutes } from './anthropic/batches.ts'
import { serveKey } from './key-view.ts'
import { speechRoutes } from '../operations/speech/protocols/routes.ts'
import { transcriptionRoutes } from '../operations/transcription/protocols/routes.ts'
import { embeddingsRoutes } from '../operations/embeddings/protocols/routes.ts'
import { imagesRoutes } from '../operations/images/protocols/routes.ts'
import { rerankRoutes } from '../operations/rerank/protocols/routes.ts'

/**
 * Every client-protocol route, registered here once. gateway.ts gives this table to Bun.serve's own router (which
 * matches paths natively, skipping Elysia's per-request work: ~2-3% of the main thread's CPU per request, bench/,
 * 2026-11-23), and app.ts mounts the same table in Elysia, for `app.handle` (tests) and the docs. Other methods on
 * these paths, and every other path, fall through to Elysia.
 */
export function protocolRoutes(services: Services): RouteTable {
  return mergeRoutes([
    openAiChatRoutes(services),
    openAiResponsesRoutes(services),
    embeddingsRoutes(services),
    imagesRoutes(services),
    rerankRoutes(services),
    speechRoutes(services),
    transcriptionRoutes(services),
    anthropicRoutes(services),
    geminiRoutes(services),
    openAiFileRoutes(services),
    batchRoutes(services),
    anthropicBatchRoutes(services),
    {
      '/v1/models': { GET: (request) => serveModels(services, request) },
      '/v1/models/*': { GET: (request) => serveModels(services, request) },
      '/v1/key': { GET: (request) => serveKey(services, request) },
    },
  ])
}
