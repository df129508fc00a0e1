import { GatewayError, invalidRequest } from '../../core/errors.ts'

/**
 * Field checks shared by the protocol decoders. Each failure is a 400 naming the field (`messages[2].role`),
 * in words a developer can act on.
 */
export type Json = Record<string, unknown>

export function isObject(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

export function requireObject(value: unknown, field: string): Json {
  if (!isObject(value)) throw invalidRequest(`Invalid type for '${field}': expected an object.`, field)
  return value
}

export function requireArray(value: unknown, field: string): unknown[] {
  if (!Array.isArray(value)) throw invalidRequest(`Invalid type for '${field}': expected an array.`, field)
  return value
}

export function requireString(value: unknown, field: string): string {
  if (typeof value !== 'string') throw invalidRequest(`Invalid type for '${field}': expected a string.`, field)
  return value
}

export function optionalString(value: unknown, field: string): string | undefined {
  return value === undefined || value === null ? undefined : requireString(value, field)
}

export function optionalBoolean(value: unknown, field: string): boolean | undefined {
  if (value === undefined || value === null) return undefined
  if (typeof value !== 'boolean') throw invalidRequest(`Invalid type for '${field}': expected a boolean.`, field)
  return value
}

export function optionalNumber(
  value: unknown,
  field: string,
  range: { min?: number; max?: number; integer?: boolean } = {},
): number | undefined {
  if (value === undefined || value === null) return undefined
  if (typeof value !== 'number' || !Number.isFinite(value)) throw invalidRequest(`Invalid type for '${field}': expected a number.`, field)
  if (range.integer && !Number.isInteger(value)) throw invalidRequest(`Invalid value for '${field}': expected an integer.`, field)
  if ((range.min !== undefined && value < range.min) || (range.max !== undefined && value > range.max)) {
    const bounds =
      range.max === undefined
        ? `at least ${range.min}`
        : range.min === undefined
          ? `at most ${range.max}`
          : `between ${range.min} and ${range.max}`
    throw invalidRequest(`Invalid value for '${field}': ${value} is out of range, it must be ${bounds}.`, field)
  }
  return value
}

/** `stop`/`stop_sequences`: a string or a list of at most four strings. */
export function optionalStops(value: unknown, field: string, allowString = true): string[] | undefined {
  if (value === undefined || value === null) return undefined
  if (allowString && typeof value === 'string') return [value]
  const list = requireArray(value, field)
  if (list.length > 4)
    throw invalidRequest(`Invalid value for '${field}': at most 4 stop sequences are allowed, got ${list.length}.`, field)
  // A loop, not a `map` closure: a closure over `field` made every call (the usual one, with no stops) build a scope.
  const stops: string[] = []
  for (let index = 0; index < list.length; index++) stops.push(requireString(list[index], stopField(field, index)))
  return stops
}

function stopField(field: string, index: number): string {
  return `${field}[${index}]`
}

export function optionalSchema(value: unknown, field: string): Json {
  if (value === undefined || value === null) return { type: 'object', properties: {} }
  return requireObject(value, field)
}

/**
 * Parse a JSON body; malformed JSON, a non-object, or nesting deeper than `maxDepth` is a 400, never a 500. The depth
 * is checked before parsing: a 90 KB body nested 45,000 deep parses, then overflows the stack of the first recursive
 * walk over it (the upstream encoder's JSON.stringify), which read as a route failure and opened the route to every
 * other account.
 */
/**
 * A batch item's stored body: its depth was checked against `limits.json_depth` when the batch was submitted, so
 * running it (maybe after a reload that lowered the limit) checks nothing more.
 */
export const storedItemDepth = Number.POSITIVE_INFINITY

export function parseJsonBody(text: string, maxDepth: number): Json {
  if (exceedsDepth(text, maxDepth)) {
    throw new GatewayError(
      'invalid_request',
      `The request body is nested too deeply: JSON arrays and objects may be nested at most ${maxDepth} levels.`,
      { code: 'json_too_deep' },
    )
  }
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    throw invalidRequest('The request body is not valid JSON.')
  }
  if (!isObject(value)) throw invalidRequest('The request body must be a JSON object.')
  return value
}

/**
 * Does the JSON text nest arrays and objects more than `limit` deep? One pass counting brackets outside strings;
 * each string is skipped with a native indexOf to its closing quote, so the prompt text that makes up most of a body
 * is never walked a character at a time. Malformed text gets some answer; JSON.parse refuses it next anyway.
 */
export function exceedsDepth(text: string, limit: number): boolean {
  // Nesting deeper than `limit` takes more than `limit` opening brackets.
  if (text.length <= limit) return false
  let depth = 0
  const length = text.length
  for (let index = 0; index < length; index++) {
    const char = text.charCodeAt(index)
    if (char === 34) index = closingQuote(text, index + 1)
    else if (char === 123 || char === 91) {
      if (++depth > limit) return true
    } else if (char === 125 || char === 93) depth--
  }
  return false
}

/** The index of the quote that ends a string opened before `from` (the text's length when there is none). */
function closingQuote(text: string, from: number): number {
  while (true) {
    const quote = text.indexOf('"', from)
    if (quote === -1) return text.length
    let slashes = 0
    while (text.charCodeAt(quote - 1 - slashes) === 92) slashes++
    if (slashes % 2 === 0) return quote
    from = quote + 1
  }
}

/**
 * Check a `messages` array the way every chat protocol validates it: present, non-empty, each item an object whose
 * `role` is one of `roles` (`rolesShown` is how the error names them). Returns the messages, each with a valid
 * `role`, for the caller to walk by index (`messages[${index}]` names a field in its errors). A plain loop rather
 * than a generator: no iterator, no result object per message on every request.
 */
export function readMessages(value: unknown, roles: readonly string[], rolesShown: string): (Json & { role: string })[] {
  if (value === undefined) throw invalidRequest("Missing required parameter: 'messages'.", 'messages')
  const list = requireArray(value, 'messages')
  if (list.length === 0) throw invalidRequest("Invalid value for 'messages': it must contain at least one message.", 'messages')
  for (let index = 0; index < list.length; index++) {
    // The field names are spelled only for the 400: two strings a message otherwise.
    const message = list[index]
    if (!isObject(message)) requireObject(message, `messages[${index}]`)
    const role = (message as Json).role
    if (typeof role !== 'string') requireString(role, `messages[${index}].role`)
    if (!roles.includes(role as string))
      throw invalidRequest(`Invalid value for 'messages[${index}].role': '${role}' is not one of ${rolesShown}.`, `messages[${index}].role`)
  }
  return list as (Json & { role: string })[]
}
