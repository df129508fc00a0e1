import type { ProviderConfig } from '../config/types.ts'
import { GatewayError } from '../core/errors.ts'
import type { ChatRequest, StreamEvent } from '../core/ir.ts'
import { SseParser } from '../core/sse.ts'
import type { ForwardRequest, HttpCodec, Provider, StreamDecoder, Target } from './types.ts'

/**
 * One upstream HTTP call with the provider's timeouts. The first-byte timer covers connecting and waiting for
 * the response head; the total timer covers everything; aborting the caller's signal (a client that left)
 * aborts the fetch at once.
 */
export async function fetchUpstream(
  provider: ProviderConfig, path: string, init: { body: string; headers: Record<string, string> }, signal: AbortSignal,
): Promise<{ response: Response; totalSignal: AbortSignal }> {
  const total = AbortSignal.timeout(provider.timeouts.totalMs)
  const firstByte = new AbortController()
  const timer = setTimeout(() => firstByte.abort(new GatewayError('timeout', `Upstream ${provider.name} sent no response within ${provider.timeouts.firstByteMs} ms`)), provider.timeouts.firstByteMs)
  try {
    const response = await fetch(provider.baseUrl + path, {
      method: 'POST',
      body: init.body,
      headers: { 'content-type': 'application/json', ...provider.headers, ...init.headers },
      signal: AbortSignal.any([signal, total, firstByte.signal]),
      // Responses are streamed to the client as they come; never let fetch decompress-and-buffer or follow redirects.
      redirect: 'manual',
    })
    return { response, totalSignal: total }
  } catch (error) {
    throw upstreamFailure(provider, error, signal, total)
  } finally {
    clearTimeout(timer)
  }
}

/** Map a thrown fetch error to what the client should see. */
export function upstreamFailure(provider: ProviderConfig, error: unknown, clientSignal: AbortSignal, total?: AbortSignal): GatewayError {
  if (error instanceof GatewayError) return error
  if (clientSignal.aborted) return new GatewayError('upstream', 'Client closed the request', { code: 'client_closed', status: 499 })
  if (total?.aborted) return new GatewayError('timeout', `Upstream ${provider.name} did not finish within ${provider.timeouts.totalMs} ms`)
  const reason = (error as Error)?.name === 'AbortError' || (error as Error)?.name === 'TimeoutError'
    ? 'timed out' : 'could not be reached'
  if (reason === 'timed out') return new GatewayError('timeout', `Upstream ${provider.name} timed out`)
  return new GatewayError('upstream_unavailable', `Upstream ${provider.name} ${reason}`, { code: 'upstream_unreachable' })
}

/**
 * Read a body as chunks with an idle watchdog: a gap longer than `idleMs` between chunks ends the stream
 * with a timeout error instead of hanging the client forever.
 */
export async function* readWithIdleTimeout(body: ReadableStream<Uint8Array>, provider: ProviderConfig, signal: AbortSignal): AsyncGenerator<Uint8Array> {
  const reader = body.getReader()
  try {
    while (true) {
      let timer: ReturnType<typeof setTimeout> | undefined
      const idle = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new GatewayError('timeout', `Upstream ${provider.name} went quiet for ${provider.timeouts.idleMs} ms mid-stream`)), provider.timeouts.idleMs)
      })
      let result: Awaited<ReturnType<typeof reader.read>>
      try {
        result = await Promise.race([reader.read(), idle])
      } catch (error) {
        throw upstreamFailure(provider, error, signal)
      } finally {
        clearTimeout(timer)
      }
      if (result.done) return
      yield result.value
    }
  } finally {
    reader.cancel().catch(() => {})
  }
}

async function* decodeBody(body: ReadableStream<Uint8Array>, decoder: StreamDecoder, provider: ProviderConfig, signal: AbortSignal): AsyncGenerator<StreamEvent> {
  const parser = new SseParser()
  for await (const chunk of readWithIdleTimeout(body, provider, signal)) {
    for (const event of parser.push(chunk)) yield* decoder.decode(event)
  }
  for (const event of parser.finish()) yield* decoder.decode(event)
  yield* decoder.finish()
}

async function ensureOk(response: Response, codec: HttpCodec): Promise<Response> {
  if (response.ok) return response
  const text = await response.text().catch(() => '')
  throw codec.decodeError(response.status, text, response.headers)
}

/** Build a Provider from a codec: the HTTP mechanics live here once, the wire format in the provider's folder. */
export function createHttpProvider(config: ProviderConfig, codec: HttpCodec): Provider {
  const auth = codec.authHeaders(config)

  async function send(request: ChatRequest, target: Target, signal: AbortSignal) {
    const encoded = codec.encodeRequest(request, target)
    const { response } = await fetchUpstream(config, encoded.path, { body: JSON.stringify(encoded.body), headers: { ...auth, ...encoded.headers } }, signal)
    return ensureOk(response, codec)
  }

  return {
    config,
    nativeProtocol: codec.nativeProtocol,
    async complete(request, target, signal) {
      const response = await send({ ...request, stream: false }, target, signal)
      let body: unknown
      try {
        body = await response.json()
      } catch (error) {
        throw signal.aborted ? upstreamFailure(config, error, signal) : new GatewayError('upstream', `Upstream ${config.name} sent a response that is not JSON`)
      }
      return codec.decodeResponse(body)
    },
    async stream(request, target, signal) {
      const response = await send({ ...request, stream: true }, target, signal)
      if (!response.body) throw new GatewayError('upstream', `Upstream ${config.name} sent an empty stream`)
      return decodeBody(response.body, codec.createStreamDecoder(), config, signal)
    },
    async forward(request: ForwardRequest, _target, signal) {
      const { response } = await fetchUpstream(config, request.path, { body: request.body, headers: { ...request.headers, ...auth } }, signal)
      return ensureOk(response, codec)
    },
    createStreamDecoder: () => codec.createStreamDecoder(),
    decodeResponse: (body) => codec.decodeResponse(body),
  }
}
