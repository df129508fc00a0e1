import type { HeaderReader } from '../../core/http1-head.ts'
import { GatewayError } from '../../core/errors.ts'
import { mapUpstreamStatus } from '../map-upstream-status.ts'

/** An OpenAI-style error body (`{"error":{"message","type","code"}}`) or anything else an upstream sent. */
export function decodeOpenAiError(status: number, body: string, headers?: HeaderReader): GatewayError {
  let message: string | undefined
  let code: string | undefined
  let param: string | undefined
  try {
    const parsed = JSON.parse(body) as {
      error?: { message?: string; code?: string | number | null; param?: string | null } | string
      message?: string
    }
    if (typeof parsed.error === 'string') message = parsed.error
    else {
      message = parsed.error?.message ?? parsed.message
      if (parsed.error?.code != null) code = String(parsed.error.code)
      if (typeof parsed.error?.param === 'string') param = parsed.error.param
    }
  } catch {
    message = body.slice(0, 200) || undefined
  }
  return mapUpstreamStatus(status, message, { code, param }, headers)
}
