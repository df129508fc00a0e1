import { type Due, DueList } from '../core/due-list.ts'
import { GatewayError } from '../core/errors.ts'
import type { KeyRecord } from '../domain/records.ts'
import { knownCaller, lookUpCaller } from './auth.ts'
import { refuseOtherAddresses } from './address-rules.ts'
import { clientAddress } from './client-address.ts'
import type { Services } from './services.ts'
import { bodyTooLarge, maxBodyBytes, refuseDeclaredSize, refuseLargeHeaders, refuseReadSize } from './body-size.ts'

/**
 * What a request must get through before the gateway spends anything on it: its key, checked from the headers alone
 * (before its body is read, so a client without a valid key cannot hold a connection by trickling one), then its
 * body, read within `limits.body_timeout_ms`.
 *
 * A request refused before its body was read is answered with `Connection: close`: the unread body would otherwise
 * be taken as the next request on the connection.
 */
const closeConnection = { connection: 'close' }

/**
 * The caller, or a 401 (a 403 from an address the key's `allowed_ips` leave out). A key in memory is answered at once (no promise: the hot path); an unknown secret costs a
 * store lookup, and a client address may have only `limits.unauthenticated_per_address` of those in progress (429
 * beyond): a flood of made-up keys from one address cannot queue up lookups for everyone.
 */
export function knownRequestCaller(services: Services, secret: string | undefined, request: Request): KeyRecord | undefined {
  try {
    const key = knownCaller(services.keys, secret)
    if (key) refuseOtherAddresses(key, request, services.server, services.config.trustedProxies)
    return key
  } catch (error) {
    throw refusedEarly(error)
  }
}

/**
 * The caller behind `secret`, by the one way in: a key in memory at once (no promise), an unknown one through the
 * per-address limit on lookups. Every endpoint finds its caller here.
 */
export function callerOf(services: Services, secret: string | undefined, request: Request): KeyRecord | Promise<KeyRecord> {
  return knownRequestCaller(services, secret, request) ?? lookUpRequestCaller(services, secret, request)
}

export async function lookUpRequestCaller(services: Services, secret: string | undefined, request: Request): Promise<KeyRecord> {
  const lookUpsByAddress = services.unknownKeyLookups
  const address = clientAddress(request, services.server)
  const inProgress = lookUpsByAddress.get(address) ?? 0
  if (inProgress >= services.config.limits.unauthenticatedPerAddress) {
    throw new GatewayError('rate_limit', 'Too many requests with unknown keys in progress from this address.', {
      code: 'too_many_unauthenticated',
      retryAfter: 1,
      headers: { ...closeConnection, 'retry-after': '1' },
    })
  }
  lookUpsByAddress.set(address, inProgress + 1)
  try {
    const key = await lookUpCaller(services.keys, secret)
    refuseOtherAddresses(key, request, services.server, services.config.trustedProxies)
    return key
  } catch (error) {
    throw refusedEarly(error)
  } finally {
    const left = lookUpsByAddress.get(address)! - 1
    if (left === 0) lookUpsByAddress.delete(address)
    else lookUpsByAddress.set(address, left)
  }
}

/** A refusal before the body was read: the connection is closed after it. */
function refusedEarly(error: unknown): unknown {
  if (!(error instanceof GatewayError)) return error
  return new GatewayError(error.kind, error.message, {
    code: error.code,
    status: error.status,
    headers: { ...error.headers, ...closeConnection },
    logDetail: error.logDetail,
  })
}

/**
 * The request's body as text: a 413 when it is larger than the gateway takes (body-size.ts) or than `maxBytes`, a 408
 * when it has not all come within `limits.body_timeout_ms` (the connection is then closed: what is left of the body
 * is never read).
 */
export function readBody(request: Request, timeoutMs: number, maxBytes = maxBodyBytes): Promise<string> {
  try {
    refuseLargeHeaders(request)
    refuseDeclaredSize(request, maxBytes)
  } catch (error) {
    return Promise.reject(refusedEarly(error)) // the body is left unread: the connection must not be reused
  }
  return new BodyRead(request, timeoutMs, maxBytes).promise
}

/**
 * One body being read under its deadline: an object rather than an async function, a promise executor and a Bun
 * timer. Every request starts with one, and what a request's start allocates and drops stays resident while many
 * streams are open (the collector frees the objects, not the blocks that the streams' own objects share with them):
 * 1 KB less garbage a stream start is about 1 KB less memory per open stream (bench/capacity.ts idle scenario).
 * The deadline waits in `bodyReads` (core/due-list.ts), one timer for every body being read.
 */
class BodyRead implements Due {
  readonly promise: Promise<string>
  private readonly resolve: (text: string) => void
  private readonly reject: (error: unknown) => void
  dueAt = 0
  dueBefore: Due | undefined = undefined
  dueAfter: Due | undefined = undefined

  constructor(
    private readonly request: Request,
    private readonly timeoutMs: number,
    maxBytes: number,
  ) {
    const { promise, resolve, reject } = Promise.withResolvers<string>()
    this.promise = promise
    this.resolve = resolve
    this.reject = reject
    bodyReads.add(this, performance.now() + timeoutMs)
    // A declared length was checked already: Bun's native text() reads it. A body sent without one (chunked) is
    // counted as it comes, so it is refused at the limit rather than held whole up to Bun's own, larger limit.
    const text = request.headers.has('content-length') || !request.body ? request.text() : readCounted(request.body, maxBytes)
    text.then(
      (text) => this.read(text, maxBytes),
      (error: unknown) => this.failed(error),
    )
  }

  private read(text: string, maxBytes: number): void {
    bodyReads.remove(this)
    try {
      refuseReadSize(this.request, text, maxBytes)
      this.resolve(text)
    } catch (error) {
      this.reject(error)
    }
  }

  private failed(error: unknown): void {
    bodyReads.remove(this)
    this.reject(error)
  }

  /** The deadline passed first (its error is made only then: an error's stack is not free). */
  due(): void {
    this.reject(bodyTimeout(this.timeoutMs))
  }
}

/** Every request body being read, until it is in or its deadline passes. */
const bodyReads = new DueList()

/** A 408: the body did not all come within `limits.body_timeout_ms` (a streamed upload's reader says so too); the connection closes. */
export function bodyTimeout(timeoutMs: number): GatewayError {
  return new GatewayError('timeout', `The request body did not arrive within ${timeoutMs} ms.`, {
    code: 'body_timeout',
    status: 408,
    headers: closeConnection,
  })
}

/** A body of unknown length, read up to `maxBytes` (the gateway's limit, body-size.ts, or a route's own) and no further. */
async function readCounted(body: ReadableStream<Uint8Array>, maxBytes: number): Promise<string> {
  const chunks: Uint8Array[] = []
  let size = 0
  const reader = body.getReader()
  for (let next = await reader.read(); !next.done; next = await reader.read()) {
    size += next.value.byteLength
    if (size > maxBytes) {
      // Left unread rather than cancelled: a cancelled body aborts the connection before the 413 can be sent.
      reader.releaseLock()
      throw refusedEarly(bodyTooLarge(maxBytes))
    }
    chunks.push(next.value)
  }
  return Buffer.concat(chunks).toString('utf8')
}
