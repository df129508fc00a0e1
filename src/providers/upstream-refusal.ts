import type { HeaderReader } from '../core/http1-head.ts'
import type { ProviderConfig } from '../config/types.ts'
import type { GatewayError } from '../core/errors.ts'
import type { HttpVendor } from './http-codec.ts'
import { redactKey } from './scrub-upstream-text.ts'
import { type BodyReader, readCappedFrom, watchRead } from './upstream-body.ts'

/**
 * An upstream refusal (a status that is not 2xx) as the GatewayError its body describes: its first `caps.errorBytes`
 * read under the same timers as any body, the rest discarded — a refusal is never relayed or held whole, however
 * large. Whichever client fetched it (fetch in http.ts, the socket client in socket-forward.ts).
 */
export async function refusalOf(
  body: BodyReader | undefined,
  status: number,
  headers: HeaderReader,
  vendor: HttpVendor,
  provider: ProviderConfig,
  attempt: AbortController,
  deadline: number,
): Promise<GatewayError> {
  if (!body) return vendor.decodeError(status, '', headers)
  const timer = watchRead(provider, attempt, deadline)
  const text = await readCappedFrom(body, provider.caps.errorBytes, true)
    .catch(() => '')
    .finally(() => clearTimeout(timer))
  // Our own key out first, whole or in pieces (an upstream may quote what it refused); the vendor's mapping then caps
  // the text and scrubs anything else key-shaped.
  return vendor.decodeError(status, redactKey(text ?? '', provider.apiKey), headers)
}
