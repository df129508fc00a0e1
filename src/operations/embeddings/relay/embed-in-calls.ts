import { GatewayError } from '../../../core/errors.ts'
import { checkedUsage } from '../../../core/usage.ts'
import type { Attempt } from '../../../relay/attempt.ts'
import type { EmbeddingsAnswer, EmbeddingsRequest } from '../core/ir.ts'
import type { EmbeddingsUpstream } from '../core/upstream.ts'

/** Calls of one split request in flight at once: enough to hide latency, few enough not to flood one upstream. */
const callsAtOnce = 4

/**
 * A request's vectors from as many calls as its upstream needs (`inputsPerCall` inputs each), joined back in the
 * inputs' order. All calls share the attempt's controller and timers: one failing fails the attempt (which the
 * relay may retry elsewhere), and the relay's abort stops the others.
 */
export async function embedInCalls(upstream: EmbeddingsUpstream, request: EmbeddingsRequest, attempt: Attempt): Promise<EmbeddingsAnswer> {
  const size = upstream.inputsPerCall
  if (request.inputs.length <= size)
    return checkedAnswer(await upstream.embed(request, attempt.target, attempt.upstream, attempt.traceparent), request, attempt)
  const parts: EmbeddingsRequest[] = []
  for (let start = 0; start < request.inputs.length; start += size)
    parts.push({ ...request, inputs: request.inputs.slice(start, start + size) })
  const answers: EmbeddingsAnswer[] = new Array(parts.length)
  let next = 0
  const worker = async () => {
    while (next < parts.length) {
      const index = next++
      answers[index] = checkedAnswer(
        await upstream.embed(parts[index]!, attempt.target, attempt.upstream, attempt.traceparent),
        parts[index]!,
        attempt,
      )
    }
  }
  await Promise.all(Array.from({ length: Math.min(callsAtOnce, parts.length) }, worker))
  return joinAnswers(answers)
}

/** One call's answer, if it has one vector per input: anything else is the upstream's fault (a 502, retried elsewhere). */
export function checkedAnswer(answer: EmbeddingsAnswer, request: EmbeddingsRequest, attempt: Attempt): EmbeddingsAnswer {
  if (answer.vectors.length === request.inputs.length) return answer
  throw new GatewayError(
    'upstream',
    `Upstream ${attempt.target.provider.name} sent ${answer.vectors.length} vectors for ${request.inputs.length} inputs`,
    {
      code: 'upstream_malformed',
    },
  )
}

/** The calls' answers as one: vectors in order, and usage summed when every call reported it (else none: counted). */
function joinAnswers(answers: EmbeddingsAnswer[]): EmbeddingsAnswer {
  let inputTokens = 0
  let reported = true
  for (const answer of answers) {
    if (answer.usage) inputTokens += answer.usage.inputTokens
    else reported = false
  }
  const usage = reported
    ? checkedUsage({ inputTokens, cachedInputTokens: 0, cacheWriteTokens: 0, outputTokens: 0, reasoningTokens: 0 })
    : undefined
  return { model: answers[0]!.model, vectors: answers.flatMap((answer) => answer.vectors), usage }
}
