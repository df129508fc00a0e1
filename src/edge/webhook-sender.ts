import { lookup } from 'node:dns/promises'
import { checkResolvedAddresses, checkWebhookUrl } from '../core/webhook-url.ts'
import type { WebhookSend } from '../domain/alerts/deliverer.ts'

/**
 * The HTTP half of a webhook delivery, with the checks core/webhook-url.ts asks of it: the URL is judged again at
 * each attempt (the operator's setting may have changed), a host name is resolved right before the attempt and
 * every address it gives is judged, the connection goes to the judged address (the name kept for the Host header and
 * the TLS server name, so a DNS answer that changes in between cannot walk past the check), and redirects are never
 * followed (a public receiver answering 302 to a metadata address gets nothing).
 */
export function createWebhookSender(allowPrivate: () => boolean): WebhookSend {
  return async ({ url, body, headers, timeoutMs }) => {
    const options = { allowPrivate: allowPrivate() }
    const verdict = checkWebhookUrl(url, options)
    if (!verdict.allowed) throw new Error(`refused: ${verdict.reason}`)
    const target = new URL(verdict.url)
    const host = target.hostname
    if (!verdict.address) {
      const addresses = (await lookup(host, { all: true, verbatim: true })).map((entry) => entry.address)
      const resolved = checkResolvedAddresses(host, addresses, options)
      if (!resolved.allowed) throw new Error(`refused: ${resolved.reason}`)
      target.hostname = addresses[0]!.includes(':') ? `[${addresses[0]}]` : addresses[0]!
    }
    const response = await fetch(target, {
      method: 'POST',
      body,
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
      headers: { ...headers, host: verdict.url.host },
      ...(target.protocol === 'https:' && { tls: { serverName: host } }),
    })
    await response.body?.cancel().catch(() => {}) // the answer's body means nothing: only its status counts
    return { status: response.status, retryAfterMs: retryAfterOf(response.headers.get('retry-after')) }
  }
}

/** Retry-After in seconds (a date is rare from a webhook receiver, and is ignored). */
function retryAfterOf(value: string | null): number | undefined {
  return value !== null && /^\d{1,6}$/.test(value.trim()) ? Number(value) * 1000 : undefined
}
