import type { ProviderConfig } from '../config/types.ts'
import type { AnswerEvent } from '../core/operation.ts'
import type { BodyChunks, ForwardedAnswer, ForwardedStream, WholeForwarded } from '../core/provider.ts'
import { SseParser } from '../core/sse.ts'
import { HeadTimer } from './head-timer.ts'
import type { Http1Answer, Http1Client, StreamedBody } from './http1-client.ts'
import type { AnswerDecoder, HttpVendor } from './http-codec.ts'
import { refusalOf } from './upstream-refusal.ts'
import { GatewayError } from '../core/errors.ts'
import { AttemptController } from '../core/attempt-controller.ts'
import { bodyTooLarge, parseUpstreamJson, readCappedFrom, textOf, UpstreamChunks, upstreamFailure, watchRead } from './upstream-body.ts'

/**
 * A forwarded (passthrough) request sent with Tollgate's own HTTP/1.1 client (http1-client.ts) instead of fetch: the
 * same four timers as http.ts's fetchUpstream (the head timer until the head, idle_ms and total_ms over the body), the
 * same refusals and failures, without Bun's HTTP client thread between the upstream and the relay
 * (docs/capacity.md, fourteenth round). `path` is the full path below the client's origin; `body` is JSON text, or a
 * form streamed from disk as the upstream takes it (file-form.ts: transcriptions, image edits).
 */
export async function forwardOverSocket<Answer, Event extends AnswerEvent>(
  client: Http1Client,
  provider: ProviderConfig,
  path: string,
  body: string | StreamedBody,
  headers: Record<string, string>,
  attempt: AbortController,
  vendor: HttpVendor,
  decoder: AnswerDecoder<Answer, Event>,
): Promise<ForwardedAnswer<Answer, Event>> {
  const head = new HeadTimer(provider, client.origin.origin + path, attempt)
  try {
    // An attempt's own controller (relay/abort-scope.ts) is watched by the answer directly; any other, through its signal.
    const abort = attempt instanceof AttemptController ? attempt : attempt.signal
    const answer = await client.request({ method: 'POST', path, headers, body, signal: abort })
    head.stop()
    if (!answer.ok) throw await refusalOf(answer, answer.status, answer.headers, vendor, provider, attempt, head.deadline)
    const coding = answer.headers.get('content-encoding')
    if (coding !== null && coding.toLowerCase() !== 'identity') {
      // Asked for none (accept-encoding: identity); relayed, its bytes would reach a client that was told JSON or SSE.
      answer.cancel()
      throw new GatewayError('upstream', `Upstream ${provider.name} sent its answer encoded as ${coding}, which was not asked for`, {
        code: 'upstream_malformed',
      })
    }
    return new SocketForwardedAnswer(answer, provider, decoder, attempt, head.deadline)
  } catch (error) {
    throw upstreamFailure(provider, error, attempt.signal)
  } finally {
    head.stop()
  }
}

class SocketForwardedAnswer<Answer, Event extends AnswerEvent> implements ForwardedAnswer<Answer, Event> {
  constructor(
    private readonly answer: Http1Answer,
    private readonly config: ProviderConfig,
    private readonly decoder: AnswerDecoder<Answer, Event>,
    private readonly attempt: AbortController,
    private readonly deadline: number,
  ) {}

  get contentType(): string | null {
    return this.answer.headers.get('content-type')
  }

  async readWhole(): Promise<WholeForwarded<Answer>> {
    const body = await this.readText()
    return { body, answer: this.decoder.decodeResponse(parseUpstreamJson(body, this.config)) }
  }

  /**
   * The whole body, within the body cap: taken at once when all of it came with the head (the usual small answer),
   * else read under idle_ms (cut to the total deadline) as a whole.
   */
  async readText(): Promise<string> {
    const { answer, config, attempt } = this
    const cap = config.caps.bodyBytes
    const declared = answer.headers.get('content-length')
    if (declared !== null && Number(declared) > cap) {
      answer.cancel()
      throw bodyTooLarge(config, cap)
    }
    const arrived = answer.takeArrived()
    if (arrived !== undefined) {
      const size = arrived.reduce((sum, piece) => sum + piece.byteLength, 0)
      if (size > cap) throw bodyTooLarge(config, cap)
      return textOf(arrived, size)
    }
    const timer = watchRead(config, attempt, this.deadline)
    let body: string | undefined
    try {
      body = await readCappedFrom(answer, cap)
    } catch (error) {
      throw upstreamFailure(config, error, attempt.signal)
    } finally {
      clearTimeout(timer)
    }
    if (body === undefined) throw bodyTooLarge(config, cap)
    return body
  }

  readBytes(): BodyChunks {
    return new UpstreamChunks(this.answer, this.config, this.attempt, this.deadline)
  }

  readStream(): ForwardedStream<Event> {
    const { config } = this
    if (!this.decoder.createStreamDecoder) throw new GatewayError('internal', "This operation's answers are never streamed")
    return {
      chunks: new UpstreamChunks(this.answer, config, this.attempt, this.deadline),
      decoder: this.decoder.createStreamDecoder({ apiKey: config.apiKey }),
      parser: new SseParser(config.caps.eventBytes),
      maxHeldBytes: config.caps.bodyBytes,
    }
  }
}
