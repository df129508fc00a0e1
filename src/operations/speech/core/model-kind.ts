import type { ModelKindRules } from '../../../core/model-kind.ts'
import { speechOperationName } from './upstream.ts'

/**
 * A text-to-speech model (`kind: speech`): billed per input character (`characters`, USD per 1M), plus input and
 * output tokens where the upstream reports them (`input`, `output`: gpt-4o-mini-tts's SSE stream does). Its hold for
 * output tokens is `max_output_tokens`.
 */
export const speechModels: ModelKindRules = {
  operation: speechOperationName,
  price: { required: ['characters'], optional: ['input', 'output'] },
  settings: ['max_output_tokens'],
}
