import type { ModelKindRules } from '../../../core/model-kind.ts'
import { embeddingsOperationName } from './upstream.ts'

/**
 * An embedding model (`kind: embedding`): billed by input tokens only, so its price has only `input` (and
 * `batch.input`); it has no output, so no output cap and no reasoning.
 */
export const embeddingModels: ModelKindRules = {
  operation: embeddingsOperationName,
  price: { required: ['input'], optional: [] },
  settings: [],
}
