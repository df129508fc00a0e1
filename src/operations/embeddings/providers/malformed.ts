import { GatewayError } from '../../../core/errors.ts'

/** An upstream's embeddings answer the gateway cannot read: its fault (a 502, retried on another route). */
export function malformedEmbeddings(what: string): GatewayError {
  return new GatewayError('upstream', `Upstream sent an embeddings answer that ${what}`, { code: 'upstream_malformed' })
}
