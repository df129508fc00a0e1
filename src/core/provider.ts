import { GatewayError } from './errors.ts'
import type { SseParser } from './sse.ts'
import type { ModelConfig, ProviderConfig } from '../config/types.ts'
import type { AnswerEvent } from './operation.ts'
import type { SseEvent } from './sse.ts'

/**
 * What the relay needs of an upstream, whatever the operation. The relay owns these contracts; `providers/`
 * implements them, so the request pipeline never depends on how any vendor's HTTP is spoken. What an upstream does
 * for one operation (chat's `complete` and `stream`, embeddings' `embed`) is that operation's own contract, in its
 * folder (operations/<name>/core/upstream.ts).
 */

/** Where one attempt goes: a provider, the model id it knows, and the gateway model behind it. */
export interface Target {
  provider: ProviderConfig
  upstreamModel: string
  model: ModelConfig
  /** `routeId(target)`, remembered by route-planner.ts the first time it is asked for. */
  route?: string
}

/** Turns upstream SSE events into an operation's IR events; stateful, one per stream. */
export interface StreamDecoder<Event extends AnswerEvent = AnswerEvent> {
  decode(event: SseEvent): Event[]
  /** The body ended: close what is open (and report an error if the stream was cut short). */
  finish(): Event[]
}

/** A raw upstream request for the passthrough path: the client's own body, lightly rewritten. */
export interface ForwardRequest {
  /** Path below the provider's base URL, with query string, e.g. `/chat/completions`. */
  path: string
  body: string
  stream: boolean
  /** Client headers that change what the body means upstream (Anthropic's `anthropic-beta`); never credentials. */
  headers?: Record<string, string>
}

/**
 * A streamed upstream body, read one chunk at a time under the provider's timers. What a read resolves with goes
 * through `took` before anything else is done with it, and whatever a reader's loop then catches through `failure`:
 *
 *     try { while (…) use(chunks.took(await chunks.read())) } catch (error) { throw chunks.failure(error) }
 *
 * The read's own promise is awaited with nothing chained on it: a promise and a job fewer per streamed chunk (~1 µs
 * of the main thread's ~20 a chunk, bench/, 2026-11-27). `cancel` when the rest is not wanted.
 */
/** Where a piped body goes as it arrives (BodyChunks.pipeTo). */
export interface ChunkSink {
  /** A piece of the body (a view, valid during the call); a promise when the sink is full: reading waits for it. */
  chunk(bytes: Uint8Array): void | Promise<unknown>
  end(): void
  /** The body failed: `error` is what the client should see (a GatewayError). */
  fail(error: unknown): void
}

export interface BodyChunks {
  read(): Promise<Bun.ReadableStreamDefaultReadResult<Uint8Array>>
  /**
   * Hand every piece from now on to `sink` as it arrives, under the same timers as reads, instead of a promise a
   * read; false when this body cannot (a fetched one: then read it). After a pipe, `read` is not called again.
   */
  pipeTo?(sink: ChunkSink): boolean
  /** A read's result, with the body's timers told that no read is in progress (or, at its end, stopped). */
  took(result: Bun.ReadableStreamDefaultReadResult<Uint8Array>): Bun.ReadableStreamDefaultReadResult<Uint8Array>
  /**
   * What the client should see of an error caught while reading: a read's own rejection (a timeout, the upstream
   * cutting the body, the client leaving) as its GatewayError; anything thrown after a read had been taken (a
   * decoder's error, a bug) as it was.
   */
  failure(error: unknown): unknown
  cancel(): void
}

/**
 * The upstream's successful answer to a forwarded request. Its body is read under the provider's own timers
 * (idle, total), which end the attempt with a GatewayError when they run out.
 */
export interface ForwardedStream<Event extends AnswerEvent = AnswerEvent> {
  chunks: BodyChunks
  decoder: StreamDecoder<Event>
  parser: SseParser
  maxHeldBytes: number
}

/** A non-streamed forwarded answer: the bytes to relay as they are, and what they mean (for the meter). */
export interface WholeForwarded<Answer> {
  body: string
  answer: Answer
}

export interface ForwardedAnswer<Answer = unknown, Event extends AnswerEvent = AnswerEvent> {
  /** The answer's Content-Type, for an operation whose answers come in several (a transcript as JSON, text or SSE). */
  readonly contentType: string | null
  /** A non-streamed answer, read whole: at once when its body came with its head (a thrown error is a failed read). */
  readWhole(): WholeForwarded<Answer> | Promise<WholeForwarded<Answer>>
  /** The same, as the upstream's text, undecoded (a transcript in SRT), within the body cap. */
  readText(): string | Promise<string>
  /**
   * A streamed answer: its chunks as they come, a decoder that reads the same bytes' events as IR, the SSE parser to
   * read them with (it caps an event's size), and how many bytes may be held back before the answer begins.
   */
  readStream(): ForwardedStream<Event>
  /** The answer's bytes as they come, undecoded (audio), under the attempt's timers. */
  readBytes(): BodyChunks
}

/** An upstream that speaks one client protocol natively, so requests in that protocol may be forwarded as bytes. */
export interface Passthrough<Answer = unknown, Event extends AnswerEvent = AnswerEvent> {
  /** The client protocol's name (`openai-chat`, `anthropic`, `gemini`). */
  readonly protocol: string
  /** Resolves once the upstream accepted the request (a refusal is thrown as a GatewayError). */
  forward(
    request: ForwardRequest,
    target: Target,
    attempt: AbortController,
    traceparent?: string | null,
  ): Promise<ForwardedAnswer<Answer, Event>>
}

/**
 * One configured upstream: its config, and its side of each operation it serves, by operation name. Each side's
 * shape is its operation's own contract (operations/<name>/core/upstream.ts), which that operation reads back; an
 * operation the upstream's kind cannot serve has no side (the config refuses a model that would need one).
 *
 * Each side's calls take `attempt`, the attempt's own controller (relay/abort-scope.ts): the relay aborts it when
 * the client leaves, and the provider aborts it itself, with a GatewayError as the reason, when one of its timers
 * runs out; and `traceparent`, when the request is traced (relay/tracing.ts), which goes upstream as the W3C
 * header, so the upstream's own spans join the trace.
 */
export interface Provider {
  readonly config: ProviderConfig
  readonly upstreams: ReadonlyMap<string, unknown>
}

/**
 * A provider's side of one operation (its `<name>UpstreamOf` reads it through this). A kind of upstream without one is
 * refused by the config at start, so a missing side here is the gateway's own fault.
 */
export function upstreamOf<Upstream>(provider: Provider, operation: string): Upstream {
  const upstream = provider.upstreams.get(operation) as Upstream | undefined
  if (!upstream) throw new GatewayError('internal', `The provider '${provider.config.name}' cannot serve ${operation}`)
  return upstream
}
