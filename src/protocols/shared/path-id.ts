import { invalidRequest } from '../../core/errors.ts'

/**
 * A path's URL-encoded part as the ID (or model) it names. Every route that reads an ID from its path decodes it
 * here: malformed percent-encoding (`/v1/files/%`) is a 400 in the caller's protocol shape, not a URIError's 500 with
 * a stack in the log.
 */
export function decodePathPart(encoded: string, what = 'ID'): string {
  try {
    return decodeURIComponent(encoded)
  } catch {
    throw invalidRequest(`The ${what} in the path is not valid URL encoding.`)
  }
}
