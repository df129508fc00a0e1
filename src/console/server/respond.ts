import { NotFoundError, ValidationError } from 'elysia'
import { GatewayError } from '../../core/errors.ts'
import type { Logger } from '../../core/logger.ts'
import { reportFailure } from '../../core/report-failure.ts'
import { DomainError } from '../../domain/errors.ts'
import { KeyInputError } from '../../domain/key-rules.ts'
import { describeKeyInputError } from './key-input.ts'
import { WebhookInputError } from '../../domain/alerts/webhook-service.ts'
import { describeWebhookInputError } from './webhook-input.ts'
import { describeValidationError } from './validation.ts'

/**
 * Every console response carries these. The policy allows only the console's own embedded files: no inline
 * script or style, no other origin, no framing, so injected markup has nothing to run and nowhere to send data.
 */
export const securityHeaders: Record<string, string> = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; " +
    "connect-src 'self'; manifest-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'permissions-policy': 'camera=(), microphone=(), geolocation=(), clipboard-write=(self)',
}

/** What every console JSON answer carries besides the security headers: never cached, it is someone's data. */
export const jsonHeaders: Record<string, string> = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' }

function consoleJson(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { ...securityHeaders, ...jsonHeaders, ...headers },
  })
}

/** 404 for anything the viewer may not see: a foreign ID must look exactly like a missing one. */
export function notFound(what = 'Not found'): GatewayError {
  return new GatewayError('not_found', what, { code: 'not_found' })
}

const domainStatus = { not_found: 404, conflict: 409, invalid: 400 } as const

/**
 * `{ error: { message, code, field? } }` with the status the error implies; anything unexpected is a logged 500.
 * A request failing a route's `t` schema is a 400 naming the field; a response failing its own is unexpected.
 */
export function consoleErrorResponse(error: unknown, logger: Logger): Response {
  if (error instanceof ValidationError && error.type !== 'response') error = describeValidationError(error)
  // No route for this method and path: the client's mistake, not the server's.
  if (error instanceof NotFoundError) error = notFound('No such route: see /docs for the API.')
  if (error instanceof KeyInputError) error = describeKeyInputError(error)
  if (error instanceof WebhookInputError) error = describeWebhookInputError(error)
  if (error instanceof DomainError) {
    return consoleJson({ error: { message: error.message, code: error.kind } }, domainStatus[error.kind])
  }
  if (error instanceof GatewayError) {
    const headers: Record<string, string> = { ...error.headers }
    if (error.retryAfter !== undefined) headers['retry-after'] = String(error.retryAfter)
    return consoleJson({ error: { message: error.message, code: error.code ?? error.kind, field: error.param } }, error.status, headers)
  }
  // A fault of the server's own: logged once, with its stack (report-failure.ts).
  reportFailure(logger, error, { route: 'console' })
  return consoleJson({ error: { message: 'Something went wrong on the server; it has been logged.', code: 'internal' } }, 500)
}
