// The baseline: the fastest trivial Bun proxy — no auth, no parsing, no billing — forwarding to the upstream.
// It still does what any proxy must: every request goes upstream with its method, path, headers and body, and the
// upstream's status, headers and body come back streamed. Handing back the upstream's own Response beats copying it
// into a new one (~15%, wrk -t2 -c50, loopback, 2026-11-24): Bun pipes its body natively.
import { forwardToUpstream, serveProxy } from './trivial-proxy.ts'

export const server = serveProxy(forwardToUpstream)
