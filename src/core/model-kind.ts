/**
 * What a model of one `kind:` takes in the config, and which operation it serves: each operation states its own
 * (operations/<name>/core/model-kind.ts), and core/model-kinds.ts lists them.
 */
export interface ModelKindRules {
  /** The operation such a model serves, as requests and usage rows name it (`chat`, `embeddings`). */
  readonly operation: string
  /**
   * Its price fields (USD per 1M tokens, `price:` in the config): the required ones, then the optional ones, which
   * default to the input price. `batch:` (the same fields, for batch items) is allowed for every kind.
   */
  readonly price: { readonly required: readonly string[]; readonly optional: readonly string[] }
  /** The model settings it takes beyond those every model has (id, provider or routes, fallbacks, price…). */
  readonly settings: readonly string[]
  /**
   * What the kind asks of a model beyond which fields it may have (one way of pricing, not two), on the config's own
   * form: the problem and the field it is at (below the model), or undefined.
   */
  readonly check?: (model: { readonly price: object } & Record<string, unknown>) => { field: string; problem: string } | undefined
}
