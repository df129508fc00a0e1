/**
 * Chat's internal format (IR): what every chat client protocol decodes into and every upstream encodes from. No
 * vendor JSON crosses this line. The relay sees these only as an operation's request, answer and events
 * (core/operation.ts); chat's own relay part (operations/chat/relay) reads them.
 */
import type { PaidFeatureUse } from '../../../core/paid-features.ts'
import type { Usage } from '../../../core/usage.ts'

/** Usage is every operation's (core/usage.ts); chat's answers and `usage` events carry it. */
export { emptyUsage, type Usage } from '../../../core/usage.ts'

/** A piece of a message. Tool calls and results are parts, so one message can hold text and calls together. */
export type ContentPart =
  | { type: 'text'; text: string }
  | ImagePart
  | FilePart
  | AudioPart
  | { type: 'tool-call'; id: string; name: string; arguments: string }
  /** `media`: images and documents a tool returned beside its text (a screenshot, a rendered page). */
  | { type: 'tool-result'; toolCallId: string; name?: string; content: string; isError?: boolean; media?: (ImagePart | FilePart)[] }
  | { type: 'reasoning'; text: string; signature?: string; redacted?: string }

export type ImagePart = { type: 'image'; url?: string; mediaType?: string; data?: string }
/** A document (a PDF, a plain-text file): inline base64 `data` or a `url`; never an image, which vendors treat apart. */
export type FilePart = { type: 'file'; mediaType: string; data?: string; url?: string; filename?: string }
/** Spoken input, inline base64 (`audio/wav`, `audio/mpeg`…). */
export type AudioPart = { type: 'audio'; mediaType: string; data: string }

export type Role = 'system' | 'user' | 'assistant' | 'tool'

export interface Message {
  role: Role
  content: ContentPart[]
}

export interface ToolDefinition {
  name: string
  description?: string
  /** JSON Schema of the arguments object. */
  parameters: Record<string, unknown>
  strict?: boolean
}

export type ToolChoice = { type: 'auto' } | { type: 'none' } | { type: 'required' } | { type: 'tool'; name: string }

export type ResponseFormat =
  | { type: 'text' }
  | { type: 'json' }
  | { type: 'json-schema'; name?: string; schema: Record<string, unknown>; strict?: boolean }

export interface ChatRequest {
  /** The gateway model id the client asked for (not the upstream id). */
  model: string
  /** System and developer instructions, in order; kept apart because three of four protocols keep them apart. */
  system: string[]
  messages: Message[]
  stream: boolean
  maxOutputTokens?: number
  temperature?: number
  topP?: number
  topK?: number
  stop?: string[]
  tools?: ToolDefinition[]
  toolChoice?: ToolChoice
  parallelToolCalls?: boolean
  responseFormat?: ResponseFormat
  reasoning?: { effort?: 'minimal' | 'low' | 'medium' | 'high'; budgetTokens?: number; include?: boolean }
  user?: string
  seed?: number
  presencePenalty?: number
  frequencyPenalty?: number
  /** Token log probabilities asked for: `top` alternatives per token (0 for the chosen token's only). */
  logprobs?: { top: number }
  /**
   * Gemini's per-request safety thresholds (category → threshold, Gemini's own names): only a Gemini upstream has
   * such a setting; other upstreams apply their own fixed moderation (docs/conformance.md).
   */
  safetySettings?: { category: string; threshold: string }[]
  /**
   * The first part that references content by URL or file id (an image URL, a Gemini fileUri, a PDF URL): its size,
   * and so its input tokens, cannot be bounded by the body's bytes. The field path, for messages.
   */
  externalContent?: string
  /** Paid upstream features the request asks for (core/paid-features.ts); absent when none. */
  paidFeatures?: PaidFeatureUse[]
}

export type FinishReason = 'stop' | 'length' | 'tool-calls' | 'content-filter' | 'refusal' | 'error' | 'other'

export interface ChatResponse {
  id: string
  model: string
  created: number
  content: ContentPart[]
  finishReason: FinishReason
  usage?: Usage
  /** Per-token log probabilities of the answer's text, when the request asked for them and the upstream gave them. */
  logprobs?: TokenLogprob[]
}

export interface TokenLogprob {
  token: string
  logprob: number
  /** The most likely alternatives at this position, best first (the chosen token may be among them). */
  top?: { token: string; logprob: number }[]
}

/**
 * One event of a streamed answer. `index` is the content block's position in the answer
 * (text, reasoning and tool calls share one sequence, as Anthropic numbers its blocks).
 *
 * The contract every decoder keeps and every encoder may rely on:
 * - `start` comes first; every block is opened (`*-start`), fed (`*-delta`) and closed (`*-end`), one block open
 *   at a time except tool calls, which may interleave (OpenAI streams parallel calls by index);
 * - `usage` is cumulative: each one replaces the previous (Anthropic sends input first, output at the end);
 * - `finish` and `usage` may come in either order, both before the stream ends (OpenAI sends usage after the
 *   finish reason); encoders that need both at once (Anthropic's message_delta) wait for the end of the stream;
 * - `error` is final: nothing follows it.
 */
export type StreamEvent =
  | { type: 'start'; id: string; model: string; created: number }
  | { type: 'text-start'; index: number }
  | { type: 'text-delta'; index: number; text: string }
  | { type: 'text-end'; index: number }
  | { type: 'reasoning-start'; index: number; redacted?: string }
  | { type: 'reasoning-delta'; index: number; text: string }
  | { type: 'reasoning-signature'; index: number; signature: string }
  | { type: 'reasoning-end'; index: number }
  | { type: 'tool-call-start'; index: number; id: string; name: string }
  | { type: 'tool-call-delta'; index: number; arguments: string }
  | { type: 'tool-call-end'; index: number }
  | { type: 'usage'; usage: Usage }
  /** The log probabilities of the text in the text-delta(s) that follow (decoders emit them first). */
  | { type: 'logprobs'; logprobs: TokenLogprob[] }
  | { type: 'finish'; reason: FinishReason }
  | { type: 'error'; error: import('../../../core/errors.ts').GatewayError }

/** The text of all text parts of a message, joined. */
export function textOf(parts: ContentPart[]): string {
  let text = ''
  for (const part of parts) if (part.type === 'text') text += part.text
  return text
}
