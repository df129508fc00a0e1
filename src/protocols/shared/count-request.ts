import { GatewayError } from '../../core/errors.ts'
import type { Services } from '../../edge/services.ts'
import type { Caller } from '../../relay/types.ts'

/**
 * Run a token count (Anthropic's count_tokens, Gemini's :countTokens) as a request of its caller's: under the key's
 * request rate and concurrency, and only for a body of at most `limits.count_tokens_bytes` (a 413 otherwise). A
 * count is free, but tokenizing is CPU: unbounded, a $0 key with rpm 1 had three 25 MB counts answered.
 */
export async function runCount<T>(services: Services, caller: Caller, text: string, count: () => Promise<T>): Promise<T> {
  const permit = await services.relay.admitCount(caller)
  try {
    const limit = services.config.limits.countTokensBytes
    // Characters are at most bytes, so only a text near the limit needs its bytes counted.
    if (text.length > limit || (text.length * 3 > limit && Buffer.byteLength(text) > limit)) {
      throw new GatewayError('request_too_large', `The request body is too large to count: at most ${limit} bytes are accepted.`, {
        code: 'request_too_large',
      })
    }
    return await count()
  } finally {
    permit.release(0)
  }
}
