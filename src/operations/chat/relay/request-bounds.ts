import type { ModelConfig } from '../../../config/types.ts'
import { invalidRequest } from '../../../core/errors.ts'
import type { ChatRequest } from '../core/ir.ts'
import type { Target } from '../../../core/provider.ts'

/**
 * A paid upstream feature (core/paid-features.ts) the ledger cannot price is refused unless every model the request
 * may be served by allows it: a fallback model must not carry a feature its own config did not let through.
 */
export function refuseUnpricedFeatures(request: ChatRequest, plan: readonly Target[]): void {
  if (!request.paidFeatures) return
  for (const use of request.paidFeatures) {
    const refusing = plan.find((target) => !target.model.allow.includes(use.feature))
    if (!refusing) continue
    throw invalidRequest(
      `'${use.field}' asks for the upstream feature '${use.feature}', which costs more than tokens and is not enabled for the model '${refusing.model.id}' on this gateway.`,
      use.field,
    )
  }
}

/**
 * The most input tokens the request can be billed on `model`. Inline content is bounded by the body's bytes (a
 * byte-level tokenizer never makes more tokens than bytes). Content referenced by URL or file id is not in the body,
 * so only the model's context window bounds it; a model without one cannot take such a request safely.
 */
export function inputBoundOn(request: ChatRequest, bodyBytes: number, model: ModelConfig): number {
  if (request.externalContent) {
    if (model.contextWindow) return model.contextWindow
    throw invalidRequest(
      `'${request.externalContent}' references content by URL or file id, which the model '${model.id}' cannot take on this gateway: its context_window is not configured, so the request's cost has no bound.`,
      request.externalContent,
    )
  }
  return model.contextWindow ? Math.min(bodyBytes, model.contextWindow) : bodyBytes
}

/**
 * A reasoning model, or a request that asks for thinking, spends hidden tokens that only the upstream's final report
 * counts: such a request reads on after its client leaves (abort-scope.ts), so leaving just before the end cannot
 * avoid paying for them. Other requests stop the upstream at once and pay for what was produced.
 */
export function readsOnAfterClientLeaves(model: ModelConfig, request: ChatRequest): boolean {
  if (model.reasoning) return true
  const reasoning = request.reasoning
  return reasoning !== undefined && reasoning.budgetTokens !== 0 && reasoning.effort !== 'minimal'
}
