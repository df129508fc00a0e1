import type { ModelKindRules } from '../../../core/model-kind.ts'
import { rerankOperationName } from './upstream.ts'

/**
 * A rerank model (`kind: rerank`): priced per search unit (`price.search_unit`, a query with up to 100 documents,
 * as Cohere bills) or per input token as the upstream reports them (`price.input`: vLLM and Jina report tokens).
 * One or the other: the config says which.
 */
export const rerankModels: ModelKindRules = {
  operation: rerankOperationName,
  price: { required: [], optional: ['search_unit', 'input'] },
  settings: [],
  check(model) {
    const price = model.price as Record<string, unknown>
    if ('search_unit' in price && 'input' in price)
      return { field: 'price', problem: 'a rerank model is priced per search unit (`search_unit`) or per token (`input`), not both' }
    if (!('search_unit' in price) && !('input' in price))
      return { field: 'price.search_unit', problem: 'is required (USD per search unit), unless the model is priced per token (`input`)' }
    return undefined
  },
}
