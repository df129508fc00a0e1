import type { TokenLogprob } from '../../core/ir.ts'

/**
 * Chat Completions' `choices[].logprobs.content` ↔ the IR's token log probabilities, for both directions (the
 * openai provider reads them, the openai-chat protocol writes them).
 */
export interface OpenAiTokenLogprob {
  token: string
  logprob: number
  bytes?: number[] | null
  top_logprobs?: { token: string; logprob: number; bytes?: number[] | null }[]
}

export function decodeOpenAiLogprobs(value: unknown): TokenLogprob[] | undefined {
  const content = (value as { content?: unknown } | null | undefined)?.content
  if (!Array.isArray(content)) return undefined
  return content
    .filter((entry) => entry && typeof entry.token === 'string' && typeof entry.logprob === 'number')
    .map((entry: OpenAiTokenLogprob) => ({
      token: entry.token,
      logprob: entry.logprob,
      ...(Array.isArray(entry.top_logprobs) && { top: entry.top_logprobs.map((top) => ({ token: top.token, logprob: top.logprob })) }),
    }))
}

const bytesOf = (token: string) => [...new TextEncoder().encode(token)]

export function encodeOpenAiLogprobs(logprobs: TokenLogprob[]): { content: OpenAiTokenLogprob[]; refusal: null } {
  return {
    content: logprobs.map((entry) => ({
      token: entry.token,
      logprob: entry.logprob,
      bytes: bytesOf(entry.token),
      top_logprobs: (entry.top ?? []).map((top) => ({ token: top.token, logprob: top.logprob, bytes: bytesOf(top.token) })),
    })),
    refusal: null,
  }
}
