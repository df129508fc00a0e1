import { sseHeaders } from '../../core/sse.ts'
import { newRequestId } from '../../core/ids.ts'
import { knownRequestCaller, lookUpRequestCaller, startBodyRead } from '../../edge/front-door.ts'
import { endHandling, rawStreamResponse, streamResponse, type StreamWatch, wholeResponse } from '../../edge/respond.ts'
import { reportFailure } from '../../core/report-failure.ts'
import type { Services } from '../../edge/services.ts'
import { type AfterClose, AbortScope } from '../../relay/abort-scope.ts'
import type { Caller, RelayResult } from '../../relay/types.ts'
import type { ClientProtocol, Exchange, ProtocolHandler } from './client-protocol.ts'
import { failResponse } from './fail-response.ts'
import { noteUnauthenticated } from './note-unauthenticated.ts'
import { routeOf } from './route-of.ts'
import { parseJsonBody } from './validate.ts'

/**
 * The one handler of every relayed client protocol (Chat Completions, Responses, Messages, generateContent), in one
 * order: authenticate (from the headers), read the body, decode, relay, answer; any failure funnelled and rendered in the protocol's
 * shape. The protocol supplies only its own pieces (client-protocol.ts).
 */
export function defineProtocol(protocol: ClientProtocol): ProtocolHandler {
  return (services, request) => relayRequest(protocol, services, request)
}

async function relayRequest(protocol: ClientProtocol, services: Services, request: Request): Promise<Response> {
  const requestId = newRequestId()
  const started = performance.now()
  let key: Caller | undefined
  let exchange: Exchange | undefined
  // From the relay's call on, the relay records how the request ended (a refusal before its hold, or its settlement).
  let relayed = false
  try {
    // The key first, from the headers: a client without one cannot hold a connection by trickling a body. A key in
    // memory is answered at once: only an unknown secret costs a promise (a store lookup). A refusal here closes the
    // connection, whose unread body would otherwise be read as the next request (front-door.ts).
    const secret = protocol.readSecret(request)
    key = knownRequestCaller(services, secret, request) ?? (await lookUpRequestCaller(services, secret, request))
    let inputBound: number
    if (protocol.readExchange) ({ exchange, inputBound } = await protocol.readExchange(request, services.config.limits))
    else {
      // The body within its deadline, without an async frame of readBody's own (front-door.ts).
      const read = startBodyRead(request, services.config.limits.bodyTimeoutMs)
      let text: string
      try {
        text = read.finish(await read.text)
      } catch (error) {
        read.stop()
        throw error
      }
      exchange = protocol.decode(parseJsonBody(text, services.config.limits.jsonDepth), text, request, requestId)
      inputBound = Buffer.byteLength(text)
    }
    const scope = AbortScope.of(request)
    relayed = true
    const running = services.relay.run({
      key,
      protocol: protocol.name,
      operation: protocol.operation,
      requestId,
      request: exchange.request,
      inputBound,
      scope,
      codec: exchange,
      // The client's trace, which the gateway's span joins: read only when telemetry is on.
      traceparent: services.relay.tracer && request.headers.get('traceparent'),
    })
    // An upload kept aside is removed once every attempt has sent it; only such requests pay for the extra promise.
    const result = await (exchange.dispose ? disposedAfter(running, exchange) : running)
    if (result.kind === 'whole') {
      // Already the client's bytes (encoded, and billed, by the relay), sent under the write deadline.
      const headers = protocol.answerHeaders(requestId, result.rateLimit)
      headers['content-type'] = exchange.wholeContentType ?? protocol.wholeContentType
      return wholeResponse(result.body, headers, request, services.server, services.config.limits.writeIdleMs)
    }
    // A stream keeps the long timeout while it runs (it may pause for minutes); its end cuts it (respond.ts). The
    // watcher is what the scope runs then: an object, not a closure, which would keep this function's scopes (the
    // exchange, the services, the protocol) for as long as the stream is open.
    const watcher = new StreamWatcher(scope, services, request, requestId)
    scope.afterClose = watcher
    // A stream read to its end and billed before its response (StreamTap.endBeforeAnswer) has had its scope closed
    // already: only its writing is left, under the write deadline from now on, as a whole answer's.
    if (result.kind === 'raw-stream' && result.ended) watcher.afterClose()
    return answer(protocol, exchange, result, requestId, watcher)
  } catch (error) {
    endHandling(services.server, request, services.config.limits.writeIdleMs)
    const response = failResponse(protocol, services.logger, error, request, requestId)
    if (relayed) return response
    if (key) {
      services.relay.recordRefusal(
        {
          key,
          protocol: protocol.name,
          operation: protocol.operation.name,
          requestId,
          model: exchange?.request.model ?? '',
          stream: exchange?.request.stream ?? false,
          started,
        },
        error,
      )
    } else noteUnauthenticated(services, request, requestId, response.status, error)
    return response
  }
}

/**
 * The relay's result, once `exchange` has removed what it kept aside. A function of its own: a closure in
 * relayRequest would make its variables a scope object on every request, with an upload or not.
 */
function disposedAfter(running: Promise<RelayResult>, exchange: Exchange): Promise<RelayResult> {
  return running.finally(() => exchange.dispose!())
}

/**
 * A streamed relay result as the HTTP response: a forwarded stream goes as it came, an IR stream through the
 * protocol's stream encoder.
 */
function answer(
  protocol: ClientProtocol,
  exchange: Exchange,
  result: Exclude<RelayResult, { kind: 'whole' }>,
  requestId: string,
  watcher: StreamWatcher,
): Response {
  const headers = protocol.answerHeaders(requestId, result.rateLimit)
  switch (result.kind) {
    case 'raw-stream':
      Object.assign(headers, sseHeaders)
      if (exchange.streamContentType) headers['content-type'] = exchange.streamContentType
      return rawStreamResponse(result.body, headers)
    case 'stream':
      Object.assign(headers, sseHeaders)
      if (exchange.streamContentType) headers['content-type'] = exchange.streamContentType
      return streamResponse(exchange.encodeStream!(result.events), headers, watcher)
  }
}

/**
 * A stream's end as its client sees it: leaving ends the request, an encoder's failure (an IR stream's) goes to the
 * funnel, and once the request is over (AbortScope.close) the connection's timeout is cut to the write deadline.
 */
class StreamWatcher implements StreamWatch, AfterClose {
  readonly writeIdleMs: number

  constructor(
    private readonly scope: AbortScope,
    private readonly services: Services,
    private readonly request: Request,
    private readonly requestId: string,
  ) {
    this.writeIdleMs = services.config.limits.writeIdleMs
  }

  cancel(): void {
    this.scope.end()
  }

  fail(error: unknown): void {
    reportFailure(this.services.logger, error, { request_id: this.requestId, route: routeOf(this.request) })
  }

  afterClose(): void {
    endHandling(this.services.server, this.request, this.writeIdleMs)
  }
}
