import { estimateTokens } from '../../../core/estimate.ts'
import { ceilPerMillion } from '../../../core/pricing.ts'
import { emptyUsage } from '../../../core/usage.ts'
import { GatewayError } from '../../../core/errors.ts'
import type { Attempt } from '../../../relay/attempt.ts'
import type { OpenedAttempt, Operation } from '../../../relay/types.ts'
import { WholeAnswerMeter } from '../../../relay/whole-answer-meter.ts'
import { estimatedUsage, inputTokensAtMost, rerankCost, roughInputTokens } from '../core/bill.ts'
import { type RerankAnswer, type RerankRequest, searchUnitsOf } from '../core/ir.ts'
import { rerankOperationName, rerankUpstreamOf } from '../core/upstream.ts'

/**
 * Rerank as the relay runs it (relay/types.ts `Operation`): held for its search units (a query with up to 100
 * documents each) at `price.search_unit`, or for the most input tokens its query-document pairs can be at
 * `price.input`; billed for what the upstream reports (search units where it bills them, else the request's own;
 * tokens where it reports them, else the tokenizer's count of every pair, marked estimated). `units`: search units.
 */
export const rerankOperation: Operation<RerankRequest> = {
  name: rerankOperationName,
  modelKind: 'rerank',
  worstCaseOn(request, _inputBound, model) {
    const { price } = model
    if (price.searchUnit !== undefined) return searchUnitsOf(request) * price.searchUnit
    return ceilPerMillion([inputTokensAtMost(request), price.input])
  },
  admittedTokens: roughInputTokens,
  readsOnAfterClientLeaves: () => false,
  open: openRerankAttempt,
  // A client that leaves before its ranking is billed for the pairs it sent, as a chat client pays for its prompt.
  createMeter: (request) => new WholeAnswerMeter(async () => estimatedUsage(request, await countPairs(request))),
  costOf: rerankCost,
  describe(request, attributes) {
    attributes['tollgate.rerank.documents'] = request.documents.length
    if (request.topN !== undefined) attributes['tollgate.rerank.top_n'] = request.topN
  },
}

/** The tokenizer's count of every query-document pair (the query is read once per document). */
async function countPairs(request: RerankRequest): Promise<number> {
  const query = await estimateTokens(request.query)
  let total = 0
  for (const document of request.documents) total += query + (await estimateTokens(document))
  return total
}

/** One attempt: the ranking, checked and cut to `top_n`, its usage settled before it is written. */
async function openRerankAttempt(attempt: Attempt, request: RerankRequest): Promise<OpenedAttempt> {
  const answer = await rerankUpstreamOf(attempt.provider).rerank(request, attempt.target, attempt.upstream, attempt.traceparent)
  const seen = new Set<number>()
  for (const result of answer.results) {
    if (!Number.isInteger(result.index) || result.index < 0 || result.index >= request.documents.length || seen.has(result.index)) {
      throw new GatewayError(
        'upstream',
        `Upstream ${attempt.target.provider.name} ranked a document ${result.index} of ${request.documents.length}`,
        { code: 'upstream_malformed' },
      )
    }
    seen.add(result.index)
  }
  // Best first, as every shape promises; an upstream that ignores top_n is cut here.
  const results = [...answer.results].sort((a, b) => b.relevanceScore - a.relevanceScore).slice(0, request.topN ?? answer.results.length)
  const reported = answer.usage
  const units = reported?.units ?? searchUnitsOf(request)
  // Search units are the request's own (or the upstream's count): exact, whether or not tokens were reported.
  const exact = (reported && reported.inputTokens > 0) || attempt.target.model.price.searchUnit !== undefined
  const usage = exact ? { ...(reported ?? emptyUsage()), units } : { ...estimatedUsage(request, await countPairs(request)), units }
  const billed: RerankAnswer = { results, usage }
  attempt.meter.observeAnswer(billed)
  return { kind: 'answer', answer: billed }
}
