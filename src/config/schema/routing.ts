import { Type } from '@sinclair/typebox'
import { renamedSection } from './shapes.ts'

/** Retries and the circuit breaker: docs/routing-and-limits.md tells the whole story. */
export const routingSchema = renamedSection(
  {
    max_attempts: Type.Integer({ minimum: 1, default: 3, description: 'Upstream attempts per request, the first included.' }),
    cooldown_s: Type.Number({
      minimum: 0,
      default: 30,
      description: 'How long a tripped route is skipped before one probe request may try it again.',
    }),
    window_s: Type.Number({
      minimum: 0.001,
      default: 60,
      description: 'The recent window whose failures may trip a route (reload: needs a restart).',
    }),
    min_requests: Type.Integer({
      minimum: 1,
      default: 5,
      description: 'Fewer outcomes than this in the window never trip a route: one failure is not a trend.',
    }),
    failure_ratio: Type.Number({
      exclusiveMinimum: 0,
      maximum: 1,
      default: 0.5,
      description: 'The share of failed outcomes in the window at which a route trips.',
    }),
    backoff_ms: Type.Number({
      minimum: 0,
      default: 100,
      description: 'Retry n on the same route waits a random time up to `backoff_ms` × 2^(n−1) (full jitter).',
    }),
    backoff_max_ms: Type.Number({ minimum: 0, default: 2000, description: 'The longest such wait.' }),
    max_retry_after_s: Type.Number({
      minimum: 0,
      default: 10,
      description: 'An upstream asking to wait longer than this (`retry-after`) is not retried on the same route.',
    }),
  },
  { description: 'Retries, failover and the circuit breaker, for every model.' },
)
