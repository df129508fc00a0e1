import { GatewayError } from '../../core/errors.ts'
import { decodePathPart } from '../shared/path-id.ts'

/**
 * What follows `/models/` in a Gemini path (`gemini-2.5-flash:generateContent`), still URL-encoded; '' for the list.
 * Elysia and Bun cannot route `{model}:{method}` in one segment, so one wildcard route per version leaves it to this.
 */
export function modelPathOf(url: URL): string {
  const path = url.pathname
  const at = path.indexOf('/models/')
  return at === -1 ? '' : path.slice(at + '/models/'.length)
}

/** The model id in a path; it may hold slashes and colons (`llama3:8b`), so it is taken whole. */
export function readModel(rest: string): string {
  return decodePathPart(rest, 'model').replace(/^models\//, '')
}

/** `{model}:{method}`: the method is whatever follows the last colon. */
export function splitModelPath(rest: string): { model: string; method?: string } {
  const path = readModel(rest)
  const colon = path.lastIndexOf(':')
  return colon === -1 ? { model: path } : { model: path.slice(0, colon), method: path.slice(colon + 1) }
}

export function unknownMethod(method: string | undefined): GatewayError {
  return new GatewayError(
    'not_found',
    method ? `Method '${method}' is not supported by this gateway.` : 'POST needs a method, e.g. models/{model}:generateContent.',
    { code: 'unknown_method' },
  )
}
