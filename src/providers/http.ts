import type { ProviderConfig } from '../config/types.ts'
import { GatewayError } from '../core/errors.ts'
import type { ChatRequest, StreamEvent } from '../core/ir.ts'
import { SseParser } from '../core/sse.ts'
import { probeConnect, usesProxy } from './connect-probe.ts'
import type { ForwardRequest, HttpCodec, Provider, StreamDecoder, Target } from './types.ts'

/**
 * One upstream HTTP attempt under the provider's four timers (`timeouts:` in the config), each of which ends the
 * attempt with a `timeout` GatewayError as the abort reason, so whoever is reading sees why:
 * - connect_ms: fetch reports no "connected" moment, so when no response head has come within connect_ms a side
 *   TCP connection to the same host:port is tried (connect-probe.ts); if that cannot connect within connect_ms
 *   either, the host is unreachable and the attempt ends (at most 2 × connect_ms after sending). A refused
 *   connection fails at once without any timer. Not applied through an HTTP proxy.
 * - first_byte_ms: from sending to the response head (status and headers). For a non-streamed answer the head
 *   usually comes with the whole answer, so this bounds the generation too.
 * - idle_ms: the longest silence between two body chunks, the one from the head to the first chunk included.
 * - total_ms: the whole attempt, head and body.
 * Aborting the caller's signal (a client that left, a retry that gave up on this attempt) aborts the fetch at once
 * and stops the timers. Read the body with the returned signal (or the caller's: the timers abort the fetch with
 * their GatewayError, which a body read then rejects with).
 */
export async function fetchUpstream(
  provider: ProviderConfig, path: string, init: { body: string; headers: Record<string, string> }, signal: AbortSignal,
): Promise<{ response: Response; signal: AbortSignal }> {
  const { connectMs, firstByteMs, totalMs } = provider.timeouts
  const deadline = new AbortController()
  const attempt = AbortSignal.any([signal, deadline.signal])
  const end = (code: string, message: string) => deadline.abort(new GatewayError('timeout', `Upstream ${provider.name} ${message}`, { code }))
  const total = setTimeout(() => end('total_timeout', `did not finish within ${totalMs} ms`), totalMs)
  attempt.addEventListener('abort', () => clearTimeout(total), { once: true })
  const head = setTimeout(() => end('first_byte_timeout', `sent no response within ${firstByteMs} ms`), firstByteMs)
  const url = new URL(provider.baseUrl + path)
  let answered = false
  const connect = usesProxy() ? undefined : setTimeout(() => {
    void probeConnect(url, connectMs).then((reachable) => {
      if (!reachable && !answered) end('connect_timeout', `could not be connected to within ${connectMs} ms`)
    })
  }, connectMs)
  try {
    const response = await fetch(url, {
      method: 'POST',
      body: init.body,
      headers: { 'content-type': 'application/json', ...provider.headers, ...init.headers },
      signal: attempt,
      // Responses are streamed to the client as they come; never let fetch decompress-and-buffer or follow redirects.
      redirect: 'manual',
    })
    return { response, signal: attempt }
  } catch (error) {
    throw upstreamFailure(provider, error, attempt)
  } finally {
    answered = true
    clearTimeout(head)
    clearTimeout(connect)
  }
}

/** Map a thrown fetch or body-read error to what the client should see. */
export function upstreamFailure(provider: ProviderConfig, error: unknown, signal: AbortSignal): GatewayError {
  if (error instanceof GatewayError) return error
  if (signal.aborted) {
    // Our own timers and the relay abort with a GatewayError; anything else is the client going away.
    if (signal.reason instanceof GatewayError) return signal.reason
    return new GatewayError('upstream', 'Client closed the request', { code: 'client_closed', status: 499 })
  }
  return new GatewayError('upstream_unavailable', `Upstream ${provider.name} could not be reached or closed the connection`, { code: 'upstream_unreachable' })
}

/**
 * Read a body as chunks with an idle watchdog: a gap longer than `idleMs` between chunks ends the stream
 * with a timeout error instead of hanging the client forever.
 */
export async function* readWithIdleTimeout(body: ReadableStream<Uint8Array>, provider: ProviderConfig, signal: AbortSignal): AsyncGenerator<Uint8Array> {
  const reader = body.getReader()
  const { idleMs } = provider.timeouts
  try {
    while (true) {
      let timer: ReturnType<typeof setTimeout> | undefined
      const idle = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new GatewayError('timeout', `Upstream ${provider.name} went quiet for ${idleMs} ms mid-answer`, { code: 'idle_timeout' })), idleMs)
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

/** A whole body as text, under the idle and total timers (a non-streamed answer can stall mid-body too). */
export async function readBodyText(body: ReadableStream<Uint8Array> | null, provider: ProviderConfig, signal: AbortSignal): Promise<string> {
  if (!body) return ''
  const decoder = new TextDecoder()
  let text = ''
  for await (const chunk of readWithIdleTimeout(body, provider, signal)) text += decoder.decode(chunk, { stream: true })
  return text + decoder.decode()
}

async function* decodeBody(body: ReadableStream<Uint8Array>, decoder: StreamDecoder, provider: ProviderConfig, signal: AbortSignal): AsyncGenerator<StreamEvent> {
  const parser = new SseParser()
  for await (const chunk of readWithIdleTimeout(body, provider, signal)) {
    for (const event of parser.push(chunk)) yield* decoder.decode(event)
  }
  for (const event of parser.finish()) yield* decoder.decode(event)
  yield* decoder.finish()
}

async function ensureOk(response: Response, codec: HttpCodec, provider: ProviderConfig, signal: AbortSignal): Promise<Response> {
  if (response.ok) return response
  const text = await readBodyText(response.body, provider, signal).catch(() => '')
  throw codec.decodeError(response.status, text, response.headers)
}

/** Build a Provider from a codec: the HTTP mechanics live here once, the wire format in the provider's folder. */
export function createHttpProvider(config: ProviderConfig, codec: HttpCodec): Provider {
  const auth = codec.authHeaders(config)

  async function send(path: string, body: string, headers: Record<string, string>, signal: AbortSignal) {
    const exchange = await fetchUpstream(config, path, { body, headers }, signal)
    return { response: await ensureOk(exchange.response, codec, config, exchange.signal), signal: exchange.signal }
  }

  function sendRequest(request: ChatRequest, target: Target, signal: AbortSignal) {
    const encoded = codec.encodeRequest(request, target)
    return send(encoded.path, JSON.stringify(encoded.body), { ...auth, ...encoded.headers }, signal)
  }

  return {
    config,
    nativeProtocol: codec.nativeProtocol,
    async complete(request, target, signal) {
      const { response, signal: attempt } = await sendRequest({ ...request, stream: false }, target, signal)
      const text = await readBodyText(response.body, config, attempt)
      let body: unknown
      try {
        body = JSON.parse(text)
      } catch {
        throw new GatewayError('upstream', `Upstream ${config.name} sent a response that is not JSON`, { code: 'upstream_malformed' })
      }
      return codec.decodeResponse(body)
    },
    async stream(request, target, signal) {
      const { response, signal: attempt } = await sendRequest({ ...request, stream: true }, target, signal)
      if (!response.body) throw new GatewayError('upstream', `Upstream ${config.name} sent an empty stream`)
      return decodeBody(response.body, codec.createStreamDecoder(), config, attempt)
    },
    async forward(request: ForwardRequest, _target, signal) {
      // The client's meaning-changing headers, then our credentials: a client header can never replace them.
      return (await send(request.path, request.body, { ...request.headers, ...auth }, signal)).response
    },
    createStreamDecoder: () => codec.createStreamDecoder(),
    decodeResponse: (body) => codec.decodeResponse(body),
  }
}
