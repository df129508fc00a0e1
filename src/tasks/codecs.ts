import type { TaskKind } from '../domain/tasks/records.ts'
import { openAiBatchItems } from '../protocols/openai-chat/batch-items.ts'
import { anthropicBatchItems } from '../protocols/anthropic/batches.ts'
import { geminiBatchItems } from '../protocols/gemini/batches.ts'
import type { BatchItemCodec } from '../protocols/shared/batch-item.ts'

/** Each kind of task's items, decoded and finished by its own protocol (explicit: a binary cannot scan folders). */
export const batchCodecs: Record<TaskKind, BatchItemCodec> = {
  openai: openAiBatchItems,
  anthropic: anthropicBatchItems,
  gemini: geminiBatchItems,
}
