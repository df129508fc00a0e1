import { costOf, worstCaseCost } from '../../../core/pricing.ts'
import type { Operation } from '../../../relay/types.ts'
import type { ChatRequest } from '../core/ir.ts'
import { promptText } from '../core/prompt-text.ts'
import { chatOperationName } from '../core/upstream.ts'
import { ChatMeter } from './meter.ts'
import { openChatAttempt } from './open-attempt.ts'
import { inputBoundOn, readsOnAfterClientLeaves, refuseUnpricedFeatures } from './request-bounds.ts'

/**
 * Chat as the relay runs it (relay/types.ts `Operation`): held for its input bounded by the body's bytes plus its
 * whole output allowance, metered in tokens from the upstream's report (or the tokenizer's estimate of what was
 * produced), priced per million input, cached, cache-write and output tokens.
 */
export const chatOperation: Operation<ChatRequest> = {
  name: chatOperationName,
  modelKind: 'chat',
  checkPlan: refuseUnpricedFeatures,
  worstCaseOn(request, inputBound, model) {
    const outputBound = Math.min(request.maxOutputTokens ?? model.maxOutputTokens, model.maxOutputTokens)
    return worstCaseCost(inputBoundOn(request, inputBound, model), outputBound, model.price)
  },
  // The prompt estimate (characters / 4, refined at the end); only a key with a token limit asks for it.
  admittedTokens: (request) => Math.ceil(promptText(request).length / 4),
  readsOnAfterClientLeaves,
  open: openChatAttempt,
  createMeter: (request) => new ChatMeter(request),
  costOf,
  describe(request, attributes) {
    if (request.maxOutputTokens !== undefined) attributes['gen_ai.request.max_tokens'] = request.maxOutputTokens
    if (request.temperature !== undefined) attributes['gen_ai.request.temperature'] = request.temperature
  },
}
