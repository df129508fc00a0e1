import type { ModelKindRules } from '../../../core/model-kind.ts'
import { imagesOperationName } from './upstream.ts'

/**
 * An image model (`kind: image`): priced per image by size and quality (`price.images`), or per token where its
 * upstream reports them (gpt-image models: `input` and `output`, with `max_output_tokens` the most one image may
 * use, which its hold is sized for). One way or the other, never both: the config says which.
 */
export const imageModels: ModelKindRules = {
  operation: imagesOperationName,
  price: { required: [], optional: ['images', 'input', 'output'] },
  settings: ['max_images', 'max_output_tokens'],
  check(model) {
    const price = model.price as Record<string, unknown>
    const tokens = 'input' in price || 'output' in price
    if ('images' in price && tokens)
      return { field: 'price', problem: 'an image model is priced per image (`images`) or per token (`input`, `output`), not both' }
    if (!('images' in price) && !tokens)
      return {
        field: 'price.images',
        problem: 'is required (USD per image by size/quality), unless the model is priced per token (`input` and `output`)',
      }
    if (tokens && !('input' in price && 'output' in price))
      return { field: `price.${'input' in price ? 'output' : 'input'}`, problem: 'is required of an image model priced per token' }
    if (tokens && model.max_output_tokens === undefined)
      return {
        field: 'max_output_tokens',
        problem: 'is required of an image model priced per token: the most tokens one image may use, which its hold is sized for',
      }
    return undefined
  },
}
