import type { ProviderConfig } from '../config/types.ts'
import { GatewayError } from '../core/errors.ts'
import type { AnswerEvent } from '../core/operation.ts'
import type { BodyChunks, ForwardedAnswer, ForwardedStream, WholeForwarded } from '../core/provider.ts'
import { SseParser } from '../core/sse.ts'
import { HeadTimer } from './head-timer.ts'
import type { AnswerDecoder, HttpVendor } from './http-codec.ts'
import { attemptDeadline, parseUpstreamJson, readBodyText, setAttemptDeadline, UpstreamChunks, upstreamFailure } from './upstream-body.ts'
import { refusalOf } from './upstream-refusal.ts'

// A request sent with Bun's fetch (https through a proxy, forms, `client: fetch`), and its answer read under the
// attempt's timers: the fetch twin of socket-forward.ts. Transport (http.ts) picks one of the two.

/**
 * One upstream HTTP attempt under the provider's four timers (`timeouts:` in the config), each of which ends the
 * attempt with a `timeout` GatewayError (as the abort reason, or thrown by the body read), so the caller sees why:
 * - connect_ms: fetch reports no "connected" moment, so when no response head has come within connect_ms a side
 *   TCP connection to the same host:port is tried (connect-probe.ts); if that cannot connect within connect_ms
 *   either, the host is unreachable and the attempt ends (at most 2 × connect_ms after sending). A refused
 *   connection fails at once without any timer. Not applied through an HTTP proxy.
 * - first_byte_ms: from sending to the response head (status and headers). For a non-streamed answer the head
 *   usually comes with the whole answer, so this bounds the generation too.
 * - idle_ms: the longest silence between two body chunks, the one from the head to the first chunk included.
 * - total_ms: the whole attempt, head and body: a deadline the head timer and every idle wait are cut to.
 * One timer runs at a time and none outlives the attempt, so a finished request leaves nothing to cancel.
 * The timers abort `attempt` — the attempt's own controller, which the relay aborts when the client leaves — so
 * whoever ends the attempt, the fetch stops at once and its abort reason says why.
 * A response that is not 2xx is read and thrown as the GatewayError the vendor makes of it (here rather than in a
 * wrapper: one async frame fewer per request).
 */
/**
 * The response comes as a forwarded answer that `decoder` reads: no async wrapper of its own per request. The body
 * and headers come as arguments of their own, not as an object made per request to carry them.
 */
export async function fetchUpstream<Answer, Event extends AnswerEvent>(
  provider: ProviderConfig,
  path: string,
  body: string | ReadableStream<Uint8Array>,
  headers: HeadersInit,
  attempt: AbortController,
  vendor: HttpVendor,
  decoder: AnswerDecoder<Answer, Event>,
): Promise<ForwardedAnswer<Answer, Event>> {
  const url = provider.baseUrl + path
  const head = new HeadTimer(provider, url, attempt)
  try {
    const response = await fetch(url, {
      method: 'POST',
      body,
      headers,
      signal: attempt.signal,
      // Responses are streamed to the client as they come; never let fetch decompress-and-buffer or follow redirects.
      redirect: 'manual',
    })
    setAttemptDeadline(response, head.deadline)
    head.stop()
    if (!response.ok)
      throw await refusalOf(response.body?.getReader(), response.status, response.headers, vendor, provider, attempt, head.deadline)
    return new HttpForwardedAnswer(response, provider, decoder, attempt)
  } catch (error) {
    throw upstreamFailure(provider, error, attempt.signal)
  } finally {
    head.stop()
  }
}

/** A forwarded request's answer, read under the attempt's timers: one object per passthrough request. */
class HttpForwardedAnswer<Answer, Event extends AnswerEvent> implements ForwardedAnswer<Answer, Event> {
  constructor(
    private readonly response: Response,
    private readonly config: ProviderConfig,
    private readonly decoder: AnswerDecoder<Answer, Event>,
    private readonly attempt: AbortController,
  ) {}

  get contentType(): string | null {
    return this.response.headers.get('content-type')
  }

  /** At once when the body came with the head (the usual small answer): no promise, no async frame. */
  readWhole(): WholeForwarded<Answer> | Promise<WholeForwarded<Answer>> {
    const body = this.readText()
    return typeof body === 'string' ? this.decoded(body) : this.decodedLater(body)
  }

  readText(): string | Promise<string> {
    return readBodyText(this.response, this.config, this.attempt)
  }

  private decoded(body: string): WholeForwarded<Answer> {
    return { body, answer: this.decoder.decodeResponse(parseUpstreamJson(body, this.config)) }
  }

  private async decodedLater(body: Promise<string>): Promise<WholeForwarded<Answer>> {
    return this.decoded(await body)
  }

  readStream(): ForwardedStream<Event> {
    const { response, config } = this
    if (!this.decoder.createStreamDecoder) throw new GatewayError('internal', "This operation's answers are never streamed")
    if (!response.body) throw new GatewayError('upstream', `Upstream ${config.name} sent an empty stream`)
    return {
      chunks: new UpstreamChunks(response.body.getReader(), config, this.attempt, attemptDeadline(response)),
      decoder: this.decoder.createStreamDecoder({ apiKey: config.apiKey }),
      parser: new SseParser(config.caps.eventBytes),
      maxHeldBytes: config.caps.bodyBytes,
    }
  }

  readBytes(): BodyChunks {
    const { response, config } = this
    if (!response.body) throw new GatewayError('upstream', `Upstream ${config.name} sent an empty body`)
    return new UpstreamChunks(response.body.getReader(), config, this.attempt, attemptDeadline(response))
  }
}
