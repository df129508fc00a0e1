import { GatewayError } from '../core/errors.ts'
import type { KeyRecord } from '../domain/records.ts'
import { knownCaller, lookUpCaller } from './auth.ts'
import { refuseOtherAddresses } from './address-rules.ts'
import { clientAddress } from './client-address.ts'
import type { Services } from './services.ts'
import { type Deadline, type DeadlineLane, laneOf } from '../core/deadlines.ts'
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
export async function readBody(request: Request, timeoutMs: number, maxBytes = maxBodyBytes): Promise<string> {
  const read = startBodyRead(request, timeoutMs, maxBytes)
  try {
    return read.finish(await read.text)
  } finally {
    read.stop()
  }
}

/**
 * readBody for the hot path (define-protocol.ts), without an async frame of its own: the body's read has begun, under
 * its deadline; the caller awaits `text`, passes it through `finish`, and calls `stop` if it failed. A refusal from the
 * headers alone (too large, by its declared length or its headers) is thrown at once, with the connection closed.
 */
export function startBodyRead(request: Request, timeoutMs: number, maxBytes = maxBodyBytes): BodyRead {
  let declared: string | undefined
  try {
    // The declared length from the headers the size check read (a native call each per request otherwise).
    declared = refuseLargeHeaders(request)['content-length'] as string | undefined
    refuseDeclaredSize(declared, maxBytes)
  } catch (error) {
    throw refusedEarly(error) // the body is left unread: the connection must not be reused
  }
  return new BodyRead(request, declared !== undefined, timeoutMs, maxBytes)
}

// A promise's resolving functions, handed out by its executor: a module function, so no closure is made per read.
let resolveText: ((text: string) => void) | undefined
let rejectText: ((error: unknown) => void) | undefined
function takeResolvers(resolve: (text: string) => void, reject: (error: unknown) => void): void {
  resolveText = resolve
  rejectText = reject
}

/**
 * One body being read within its deadline. The deadline is a shared lane's entry (core/deadlines.ts), not a timer of
 * its own, and Bun's read is passed the promise's own resolving functions: no closures, no Timeout, no async frame
 * (14 objects a request before, bench/census.ts).
 */
class BodyRead implements Deadline {
  /** The body's text, or the 408 when the deadline came first (or whatever the read failed with). */
  readonly text: Promise<string>
  private readonly reject: (error: unknown) => void
  dueAt = 0
  lane: DeadlineLane | undefined
  laneNext: Deadline | undefined
  lanePrevious: Deadline | undefined

  constructor(
    request: Request,
    /** The body's length was declared (Content-Length). */
    private readonly declared: boolean,
    private readonly timeoutMs: number,
    private readonly maxBytes: number,
  ) {
    this.text = new Promise<string>(takeResolvers)
    const resolve = resolveText!
    this.reject = rejectText!
    resolveText = rejectText = undefined
    laneOf(timeoutMs).add(this)
    // A declared length was checked already: Bun's native text() reads it. A body sent without one (chunked) is
    // counted as it comes, so it is refused at the limit rather than held whole up to Bun's own, larger limit.
    const text = declared || !request.body ? request.text() : readCounted(request.body, maxBytes)
    text.then(resolve, this.reject)
  }

  /** The body came: the deadline is off, and its size is checked (a 413 when it is larger than allowed). */
  finish(text: string): string {
    this.stop()
    refuseReadSize(this.declared, text, this.maxBytes)
    return text
  }

  /** The read is over, however it ended: its deadline is off. */
  stop(): void {
    this.lane?.remove(this)
  }

  /** The deadline came first (its error is made only then: an error's stack is not free). */
  expire(): void {
    this.reject(bodyTimeout(this.timeoutMs))
  }
}

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
