import { chatModels } from '../operations/chat/core/model-kind.ts'
import { embeddingModels } from '../operations/embeddings/core/model-kind.ts'
import type { ModelKindRules } from './model-kind.ts'

/** Every `kind:` a model may declare, and what it takes: one line per operation. */
export const modelKinds = {
  chat: chatModels,
  embedding: embeddingModels,
} as const satisfies Record<string, ModelKindRules>

export type ModelKind = keyof typeof modelKinds
