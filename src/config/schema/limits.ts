import { Type } from '@sinclair/typebox'
import { renamedSection } from './shapes.ts'

const kibibyte = 1024
const mebibyte = 1024 * kibibyte

/** What a hostile or broken client or upstream may cost the gateway; README "Limits" says what each refusal looks like. */
export const limitsSchema = renamedSection(
  {
    // Real clients nest 10–40 levels (Claude Code's deepest tool schemas); 45,000 levels overflowed the gateway's stack.
    json_depth: Type.Integer({
      minimum: 8,
      default: 128,
      description: 'The deepest nesting of JSON arrays and objects in a request body (every endpoint); deeper is a 400 `json_too_deep`.',
    }),
    count_tokens_bytes: Type.Integer({
      minimum: kibibyte,
      default: 2 * mebibyte,
      description:
        'The largest body of a token-counting request (`/v1/messages/count_tokens`, Gemini `:countTokens`); ' + 'larger is a 413.',
    }),
    write_idle_ms: Type.Integer({
      minimum: 1,
      default: 30_000,
      description:
        'How long an answer waits on a client that takes nothing; a stream then ends as a 499 `client_closed`, ' +
        'billed for what was produced. Also how long a kept-alive connection may take to send its next request.',
    }),
    upstream_event_bytes: Type.Integer({
      minimum: 1,
      default: 8 * mebibyte,
      description: 'The longest SSE line or event an upstream may send; longer is a 502 `upstream_malformed`.',
    }),
    upstream_body_bytes: Type.Integer({
      minimum: 1,
      default: 64 * mebibyte,
      description:
        'The largest whole upstream body, and what a stream may send before its answer begins; over it, a 502 ' +
        '`upstream_malformed`, retried on another route.',
    }),
    upstream_error_bytes: Type.Integer({
      minimum: 1,
      default: 64 * kibibyte,
      description: 'How much of an upstream error body is read; the rest is discarded.',
    }),
    body_timeout_ms: Type.Integer({
      minimum: 1,
      default: 30_000,
      description: 'How long a client may take to send its request body; then a 408 `body_timeout` and the connection closes.',
    }),
    unauthenticated_per_address: Type.Integer({
      minimum: 1,
      default: 32,
      description: 'Requests in progress from one address before its key is known; beyond, a 429 `too_many_unauthenticated`.',
    }),
    // Bun's fetch runs 256 requests at once unless told otherwise when the process starts (serve restarts itself once).
    upstream_connections: Type.Integer({
      minimum: 1,
      maximum: 65_535,
      default: 16_384,
      description:
        'Upstream requests (streams included) this instance runs at once; more wait for a free one. At most 65535, ' +
        'the most Bun allows; read at start (`serve` applies it by restarting itself once, logged in the `listening` line). ' +
        "Tollgate's own HTTP/1.1 client (providers' `client: auto`) holds it per upstream address.",
    }),
  },
  { description: 'What one request, client or upstream may make the gateway do.' },
)
