import type { TokenLogprob } from '../../core/ir.ts'

/** A candidate's `logprobsResult` ↔ the IR's token log probabilities (the gemini provider and protocol share it). */
export interface GeminiLogprobsResult {
  chosenCandidates?: { token?: string; logProbability?: number }[]
  topCandidates?: { candidates?: { token?: string; logProbability?: number }[] }[]
}

export function decodeGeminiLogprobs(result: GeminiLogprobsResult | undefined): TokenLogprob[] | undefined {
  if (!result || !Array.isArray(result.chosenCandidates)) return undefined
  return result.chosenCandidates.map((chosen, index) => {
    const top = result.topCandidates?.[index]?.candidates
    return {
      token: chosen.token ?? '',
      logprob: chosen.logProbability ?? 0,
      ...(Array.isArray(top) && {
        top: top.map((candidate) => ({ token: candidate.token ?? '', logprob: candidate.logProbability ?? 0 })),
      }),
    }
  })
}

export function encodeGeminiLogprobs(logprobs: TokenLogprob[]): GeminiLogprobsResult {
  const result: GeminiLogprobsResult = {
    chosenCandidates: logprobs.map((entry) => ({ token: entry.token, logProbability: entry.logprob })),
  }
  if (logprobs.some((entry) => entry.top)) {
    result.topCandidates = logprobs.map((entry) => ({
      candidates: (entry.top ?? []).map((top) => ({ token: top.token, logProbability: top.logprob })),
    }))
  }
  return result
}
