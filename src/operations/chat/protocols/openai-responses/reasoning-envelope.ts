/**
 * What a reasoning item's `encrypted_content` carries through a client and back. Responses clients treat it as an
 * opaque string they must return unchanged (the Codex CLI asks for it with `include: ["reasoning.encrypted_content"]`
 * and replays it on the next turn), which is exactly what an upstream's thinking signature (Anthropic, Gemini) needs
 * to survive a round trip. It is not encryption: the signature is the upstream's own, and the upstream verifies it.
 * A prefix tells our envelopes from OpenAI's real encrypted blobs, which mean nothing to any other upstream.
 */
const prefix = 'tollgate.v1.'

export interface ReasoningSeal {
  signature?: string
  redacted?: string
}

export function sealReasoning(seal: ReasoningSeal): string | undefined {
  if (!seal.signature && !seal.redacted) return undefined
  return prefix + Buffer.from(JSON.stringify({ s: seal.signature, r: seal.redacted })).toString('base64url')
}

/** Our envelope opened, or undefined for anything else (someone else's blob, or a damaged one: both are dropped). */
export function openReasoning(value: unknown): ReasoningSeal | undefined {
  if (typeof value !== 'string' || !value.startsWith(prefix)) return undefined
  try {
    const parsed = JSON.parse(Buffer.from(value.slice(prefix.length), 'base64url').toString()) as { s?: unknown; r?: unknown }
    return {
      signature: typeof parsed.s === 'string' ? parsed.s : undefined,
      redacted: typeof parsed.r === 'string' ? parsed.r : undefined,
    }
  } catch {
    return undefined
  }
}
