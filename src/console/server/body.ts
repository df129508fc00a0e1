import { GatewayError, invalidRequest } from '../../core/errors.ts'

/**
 * A body the console will not take. The parse hook returns it instead of throwing, because Elysia parses before
 * it derives: the session, origin, CSRF and admin checks must answer first (401/403/404 before 415), and they
 * throw this error once they have passed (see signed-in.ts).
 */
export class RefusedBody {
  constructor(readonly error: GatewayError) {}
}

const isObject = (value: unknown) => value !== null && typeof value === 'object' && !Array.isArray(value)

/**
 * The console's only body parser: JSON, which a cross-site HTML form cannot send; an empty body reads as `{}`
 * so a bodiless POST or DELETE needs no `Content-Type`.
 */
export async function parseConsoleBody({ request }: { request: Request }): Promise<unknown> {
  const text = await request.text()
  if (text.trim() === '') return {}
  if (!request.headers.get('content-type')?.toLowerCase().startsWith('application/json')) {
    return new RefusedBody(new GatewayError('invalid_request', 'Send the body as JSON (Content-Type: application/json).', { status: 415, code: 'unsupported_media_type' }))
  }
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return new RefusedBody(invalidRequest('The request body is not valid JSON.'))
  }
  return isObject(value) ? value : new RefusedBody(invalidRequest('The request body must be a JSON object.'))
}

export function acceptBody(body: unknown): void {
  if (body instanceof RefusedBody) throw body.error
}
