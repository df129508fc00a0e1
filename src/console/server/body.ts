import { GatewayError, invalidRequest } from '../../core/errors.ts'
import { readBody } from '../../edge/front-door.ts'

/** The largest body the console API and the admin API take: their requests are small JSON objects. */
const maxConsoleBodyBytes = 1024 * 1024

/**
 * What the parse hook leaves as the body: nothing read yet. Elysia parses before it derives, so a body parsed there
 * would be read (up to Bun's own limit, hundreds of MiB for uploads) before the caller is known: the session, origin,
 * CSRF and admin checks answer first (401/403/404 before 413/415), and only then does `readConsoleBody` read it.
 */
class UnreadBody {}
const unread = new UnreadBody()

export function deferConsoleBody(): UnreadBody {
  return unread
}

const isObject = (value: unknown) => value !== null && typeof value === 'object' && !Array.isArray(value)

/**
 * The console's only body parser, run once the caller is known, before Elysia validates the body: JSON (which a
 * cross-site HTML form cannot send) of at most `maxConsoleBodyBytes`, arrived within `body_timeout_ms`; an empty body
 * reads as `{}` so a bodiless POST or DELETE needs no `Content-Type`.
 */
export async function readConsoleBody(context: { request: Request; body: unknown }, timeoutMs: number): Promise<void> {
  if (context.body !== unread) return
  const { request } = context
  const text = await readBody(request, timeoutMs, maxConsoleBodyBytes)
  if (text.trim() === '') {
    context.body = {}
    return
  }
  if (!request.headers.get('content-type')?.toLowerCase().startsWith('application/json')) {
    throw new GatewayError('invalid_request', 'Send the body as JSON (Content-Type: application/json).', {
      status: 415,
      code: 'unsupported_media_type',
    })
  }
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    throw invalidRequest('The request body is not valid JSON.')
  }
  if (!isObject(value)) throw invalidRequest('The request body must be a JSON object.')
  context.body = value
}

/**
 * A refusal sent before the request's body was read closes the connection: the unread body would otherwise have to
 * be drained (a stranger's 200 MiB) or be taken as the next request on it.
 */
export function closeIfBodyUnread(request: Request, response: Response): Response {
  const sent = request.headers.has('transfer-encoding') || Number(request.headers.get('content-length') ?? 0) > 0
  if (sent && !request.bodyUsed) response.headers.set('connection', 'close')
  return response
}
