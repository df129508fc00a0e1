import type { ModelKindRules } from '../../../core/model-kind.ts'
import { chatOperationName } from './upstream.ts'

/** A chat model (`kind: chat`, the default): priced per input, output, cached and cache-write token. */
export const chatModels: ModelKindRules = {
  operation: chatOperationName,
  price: { required: ['input', 'output'], optional: ['cached_input', 'cache_write'] },
  settings: ['max_output_tokens', 'reasoning', 'allow'],
}
