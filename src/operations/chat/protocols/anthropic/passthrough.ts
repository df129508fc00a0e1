import type { ForwardRequest, Target } from '../../../../core/provider.ts'
import { isObject, type Json } from '../../../../protocols/shared/validate.ts'
import { refuseDuplicateKeys } from '../../../../protocols/shared/duplicate-keys.ts'

/** Below Anthropic's floor a thinking budget is refused, so thinking is turned off instead. */
const minimumThinkingBudget = 1024

/**
 * The client's own Messages body for an Anthropic upstream. Untouched bytes when nothing needs changing; otherwise
 * only the upstream's model id and the output cap the hold was sized for (with a thinking budget kept below it,
 * as Anthropic requires). `?beta=true` and `anthropic-beta` go along: beta fields in the body mean nothing without
 * them (Claude Code sends several).
 */
export function buildMessagesForward(text: string, body: Json, target: Target, request: Request): ForwardRequest {
  refuseDuplicateKeys(text)
  const edits: Json = {}
  if (body.model !== target.upstreamModel) edits.model = target.upstreamModel
  const limit = target.model.maxOutputTokens
  if (typeof body.max_tokens === 'number' && body.max_tokens > limit) {
    edits.max_tokens = limit
    const thinking = body.thinking
    if (isObject(thinking) && typeof thinking.budget_tokens === 'number' && thinking.budget_tokens >= limit) {
      edits.thinking = limit - 1 >= minimumThinkingBudget ? { ...thinking, budget_tokens: limit - 1 } : { type: 'disabled' }
    }
  }
  const forwarded = Object.keys(edits).length === 0 ? text : JSON.stringify({ ...body, ...edits })
  const beta = new URL(request.url).searchParams.get('beta') === 'true'
  const betaHeader = request.headers.get('anthropic-beta')
  return {
    path: beta ? '/v1/messages?beta=true' : '/v1/messages',
    body: forwarded,
    stream: body.stream === true,
    headers: betaHeader ? { 'anthropic-beta': betaHeader } : undefined,
  }
}
