import { chatModels } from '../operations/chat/core/model-kind.ts'
import { embeddingModels } from '../operations/embeddings/core/model-kind.ts'
import { imageModels } from '../operations/images/core/model-kind.ts'
import { rerankModels } from '../operations/rerank/core/model-kind.ts'
import { speechModels } from '../operations/speech/core/model-kind.ts'
import { transcriptionModels } from '../operations/transcription/core/model-kind.ts'
import type { ModelKindRules } from './model-kind.ts'

/** Every `kind:` a model may declare, and what it takes: one line per operation. */
export const modelKinds = {
  chat: chatModels,
  embedding: embeddingModels,
  image: imageModels,
  rerank: rerankModels,
  speech: speechModels,
  transcription: transcriptionModels,
} as const satisfies Record<string, ModelKindRules>

export type ModelKind = keyof typeof modelKinds

/** A model that declares no `kind:` is a chat model, as every model was before models had kinds. */
export const defaultModelKind: ModelKind = 'chat'

/**
 * The operation of usage recorded before usage rows had one: the default kind's. The `*_usage_operation` migrations
 * give old rows the same in SQL, and a bill spooled by a build from then is replayed as one (db/bill-spool.ts).
 */
export const operationBeforeOperations = modelKinds[defaultModelKind].operation
