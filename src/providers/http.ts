import type { ProviderConfig } from '../config/types.ts'
import type { AnswerEvent } from '../core/operation.ts'
import type { BodyChunks, ForwardedAnswer, ForwardedStream } from '../core/provider.ts'
import { proxied } from './connect-probe.ts'
import { defaultHttp1ClientOptions, Http1Client } from './http1-client.ts'
import { fetchUpstream } from './fetch-upstream.ts'
import { forwardOverSocket } from './socket-forward.ts'
import type { FileForm } from './file-form.ts'
import type { AnswerDecoder, HttpVendor } from './http-codec.ts'

/** A streamed answer's events, its chunks read under the attempt's timers and parsed as `decoder` reads its SSE. */
async function* decodeEvents<Event extends AnswerEvent>({ chunks, parser, decoder }: ForwardedStream<Event>): AsyncGenerator<Event> {
  // `for … yield` rather than `yield*` over the decoder's arrays: yield* makes an async wrapper of each array's
  // iterator, a promise more per event.
  try {
    for (let next = chunks.took(await chunks.read()); !next.done; next = chunks.took(await chunks.read())) {
      for (const event of parser.push(next.value)) for (const decoded of decoder.decode(event)) yield decoded
    }
  } catch (error) {
    throw chunks.failure(error)
  } finally {
    chunks.cancel() // a consumer that stopped early (the client left) releases the upstream connection
  }
  for (const event of parser.finish()) for (const decoded of decoder.decode(event)) yield decoded
  for (const decoded of decoder.finish()) yield decoded
}

/** What a request whose answer is read as bytes (Transport.stream) is given as its decoder: nothing is decoded. */
const undecoded: AnswerDecoder<unknown> = { decodeResponse: (body) => body }

/** How Transports reach their upstreams: the socket client's ceiling of connections per upstream address (limits.upstream_connections). */
export interface TransportOptions {
  upstreamConnections?: number
}

/** A request to an HTTP upstream: the path below its base URL (with query), the body as JSON text, extra headers. */
export interface OutgoingRequest {
  path: string
  /**
   * JSON text, or a form whose files are streamed from disk with its length declared (file-form.ts: transcriptions,
   * image edits; `FormData` was measured to read a whole file into memory).
   */
  body: string | FileForm
  /** Headers that change what the body means upstream (Anthropic's `anthropic-beta`); never credentials. */
  headers?: Record<string, string>
}

/**
 * One HTTP upstream as every operation's side reaches it (operations/<name>/providers): requests sent with the
 * vendor's credentials, and answers read, under the provider's timers and caps. The HTTP mechanics live here once;
 * each operation's wire format lives in its own folder, each vendor's credentials and errors in providers/<vendor>.
 */
export class Transport {
  private readonly auth: Record<string, string>
  private readonly common: Record<string, string>
  /**
   * What most requests send, built once: fetch copies a Headers natively, where a plain object is read property by
   * property (~1 µs a request, bench/, 2026-11-23). Requests with headers of their own get a fresh object.
   */
  private readonly usual: Headers
  /**
   * Forwarded requests go over Tollgate's own HTTP/1.1 client (socket-forward.ts), `http:` and `https:` alike (TLS
   * verified for the host against the runtime's roots and NODE_EXTRA_CA_CERTS, as fetch's): no fetch thread between
   * the upstream and the relay. Every upstream keeps fetch when an HTTP proxy is set in the environment (the client
   * speaks no proxy), or when its provider says `client: fetch`.
   */
  private readonly sockets: { client: Http1Client; basePath: string; headers: Record<string, string> } | undefined

  constructor(
    readonly config: ProviderConfig,
    private readonly vendor: HttpVendor,
    options: TransportOptions = {},
  ) {
    this.auth = vendor.authHeaders(config)
    this.common = { 'content-type': 'application/json', ...config.headers }
    this.usual = new Headers({ ...this.common, ...this.auth })
    const base = new URL(config.baseUrl)
    if ((base.protocol === 'http:' || base.protocol === 'https:') && !proxied && config.client === 'auto') {
      this.sockets = {
        client: new Http1Client(new URL(base.origin), {
          ...defaultHttp1ClientOptions,
          maxConnections: options.upstreamConnections ?? defaultHttp1ClientOptions.maxConnections,
        }),
        // What fetch's URL (base URL + path) has after the origin, so both send the same request line.
        basePath: config.baseUrl.slice(base.origin.length),
        headers: { ...this.common, ...this.auth },
      }
    }
  }

  /**
   * A request whose answer the caller reads as it comes (`contentType`, then `readText` or `readBytes`): a
   * transcription's, whole in one of several formats or streamed. Resolves once the upstream accepted it (status and
   * headers in); a refusal is thrown as a GatewayError.
   */
  send(request: OutgoingRequest, attempt: AbortController, traceparent: string | null | undefined): Promise<ForwardedAnswer> {
    return this.forward(request, undecoded, attempt, traceparent)
  }

  /**
   * A request whose answer `decoder` reads, whole or as a stream: a request forwarded as the client sent it
   * (passthrough), or one encoded from the IR (chat's translated route). Over the own client where it applies.
   */
  forward<Answer, Event extends AnswerEvent>(
    request: OutgoingRequest,
    decoder: AnswerDecoder<Answer, Event>,
    attempt: AbortController,
    traceparent: string | null | undefined,
  ): Promise<ForwardedAnswer<Answer, Event>> {
    const { sockets } = this
    if (sockets) {
      const { body } = request
      const headers =
        typeof body !== 'string'
          ? this.formHeaders(body, request)
          : request.headers
            ? { ...this.common, ...request.headers, ...this.auth }
            : sockets.headers
      const path = sockets.basePath + request.path
      const sent = traceparent ? { ...headers, traceparent } : headers
      return forwardOverSocket(sockets.client, this.config, path, body, sent, attempt, this.vendor, decoder)
    }
    return this.fetch(request, attempt, traceparent, decoder)
  }

  /** A form's headers: a request's own (a client's meaning-changing ones), the form's type, then our credentials. */
  private formHeaders(form: FileForm, request: OutgoingRequest): Record<string, string> {
    return { ...this.config.headers, ...request.headers, 'content-type': form.contentType, ...this.auth }
  }

  private fetch<Answer, Event extends AnswerEvent>(
    request: OutgoingRequest,
    attempt: AbortController,
    traceparent: string | null | undefined,
    decoder: AnswerDecoder<Answer, Event>,
  ): Promise<ForwardedAnswer<Answer, Event>> {
    // A request's own headers (a client's meaning-changing ones), then our credentials: nothing replaces them.
    const { body } = request
    if (typeof body !== 'string') {
      const form = { ...this.formHeaders(body, request), 'content-length': String(body.length) }
      return fetchUpstream(
        this.config,
        request.path,
        body.stream,
        traceparent ? { ...form, traceparent } : form,
        attempt,
        this.vendor,
        decoder,
      )
    }
    let headers: HeadersInit = request.headers ? { ...this.common, ...request.headers, ...this.auth } : this.usual
    // Only a traced request pays for a headers object of its own (the usual one is shared by every request).
    if (traceparent) {
      headers = new Headers(headers)
      headers.set('traceparent', traceparent)
    }
    return fetchUpstream(this.config, request.path, body, headers, attempt, this.vendor, decoder)
  }

  /**
   * A request's whole answer as `decoder` reads its JSON (embeddings, images, rerank): sent and read as a forwarded
   * one's, over the own client where it applies, under the attempt's timers and within the body cap.
   */
  async answer<Answer>(
    request: OutgoingRequest,
    decoder: AnswerDecoder<Answer>,
    attempt: AbortController,
    traceparent: string | null | undefined,
  ): Promise<Answer> {
    const answered = await this.forward(request, decoder, attempt, traceparent)
    return (await answered.readWhole()).answer
  }

  /** A streamed answer's events (`forward(…).readStream()`), decoded as they come, for the translated route. */
  eventsOf<Event extends AnswerEvent>(stream: ForwardedStream<Event>): AsyncGenerator<Event> {
    return decodeEvents(stream)
  }

  /**
   * A request whose answer is wanted as its bytes, as they come (audio): over the own client where it applies, under
   * the attempt's timers.
   */
  async stream(request: OutgoingRequest, attempt: AbortController, traceparent: string | null | undefined): Promise<BodyChunks> {
    return (await this.forward(request, undecoded, attempt, traceparent)).readBytes()
  }
}
