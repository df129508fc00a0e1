import type { ModelKindRules } from '../core/model-kind.ts'
import { modelKinds } from '../core/model-kinds.ts'
import { ConfigError } from './errors.ts'
import type { ConfigDocument } from './types.ts'

type ModelDocument = ConfigDocument['models'][number]

const kindRules: Record<string, ModelKindRules> = modelKinds

/** Every model setting some kind takes beyond the common ones (chat's `max_output_tokens`, `reasoning`, `allow`). */
const kindSettings = new Set(Object.values(kindRules).flatMap((rules) => rules.settings))

/**
 * What a model's `kind:` decides (core/model-kinds.ts): the settings and price fields it takes, which of those are
 * required (a chat model's `output`), and that its fallbacks serve the same kind of request. The schema accepts every
 * kind's fields; these checks hold each model to its own, naming the setting as the schema's messages do.
 */
export function checkModelKinds(models: readonly ModelDocument[]): void {
  const kinds = new Map(models.map((model) => [model.id, model.kind]))
  for (const [index, model] of models.entries()) {
    const field = `models[${index}]`
    const rules = kindRules[model.kind]!
    for (const setting of kindSettings) {
      if (setting in model && !rules.settings.includes(setting)) {
        throw new ConfigError(`${field}.${setting}`, `unknown setting for a model of kind ${model.kind}`)
      }
    }
    checkPrice(model.price, `${field}.price`, model.kind, rules)
    if (model.price.batch) checkPrice(model.price.batch, `${field}.price.batch`, model.kind, rules)
    const own = rules.check?.(model)
    if (own) throw new ConfigError(`${field}.${own.field}`, own.problem)
    for (const fallback of model.fallbacks) {
      const other = kinds.get(fallback)
      // A fallback serves the same requests: an embedding model cannot stand in for a chat model.
      if (other !== undefined && other !== model.kind) {
        const problem = `"${fallback}" is of kind ${other}, "${model.id}" of kind ${model.kind}: a fallback must be of its model's kind`
        throw new ConfigError(`${field}.fallbacks`, problem)
      }
    }
  }
}

/** A price field the kind does not bill is refused, naming the kind, rather than silently ignored. */
function checkPrice(price: object, field: string, kind: string, rules: ModelKindRules): void {
  const known = [...rules.price.required, ...rules.price.optional, ...(field.endsWith('.batch') ? [] : ['batch'])]
  for (const key of Object.keys(price)) {
    if (!known.includes(key))
      throw new ConfigError(`${field}.${key}`, `a model of kind ${kind} has no such price (expected one of: ${known.join(', ')})`)
  }
  for (const key of rules.price.required) {
    if (!(key in price)) throw new ConfigError(`${field}.${key}`, 'is required (USD per 1M tokens)')
  }
}
