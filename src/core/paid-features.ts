/**
 * Upstream features that cost money beyond tokens (server-side tools, priority tiers, stored caches). The ledger
 * prices tokens only, so a request that asks for one is refused unless its model's config allows the feature
 * (`allow: [web_search]`): an operator who allows it accepts that such use is billed at the token price.
 */
export const paidFeatures = ['web_search', 'web_fetch', 'code_execution', 'mcp_servers', 'priority_tier', 'cached_content'] as const

export type PaidFeature = (typeof paidFeatures)[number]

/** A request's use of a paid feature: which, and the request field that asks for it (for the 400's `param`). */
export interface PaidFeatureUse {
  feature: PaidFeature
  field: string
}
