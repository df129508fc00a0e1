import type { ValidationError } from 'elysia'
import { type GatewayError, invalidRequest } from '../../core/errors.ts'

/** The JSON Schema keywords this file reads; TypeBox schemas are plain objects carrying them. */
interface Schema {
  type?: string
  format?: string
  const?: unknown
  anyOf?: Schema[]
  minimum?: number
  maximum?: number
  minLength?: number
  maxLength?: number
  minItems?: number
  items?: Schema
  /** A message written for this field by the route (`t.String({ error: '…' })`), used as is. */
  error?: unknown
}

/** `/models/1` → `models[1]`, `/user/name` → `user.name`: how the console names a field elsewhere. */
function fieldName(path: string): string {
  return path
    .split('/')
    .filter(Boolean)
    .map((part, index) => (/^\d+$/.test(part) ? `[${part}]` : index ? `.${part}` : part))
    .join('')
}

function range(schema: Schema): string {
  const { minimum: min, maximum: max } = schema
  if (min !== undefined && max !== undefined) return ` from ${min} to ${max}`
  if (min !== undefined) return ` of at least ${min}`
  return max !== undefined ? ` of at most ${max}` : ''
}

function plural(schema: Schema): string {
  const names: Record<string, string> = {
    string: 'strings',
    integer: 'whole numbers',
    number: 'numbers',
    boolean: 'booleans',
    object: 'objects',
  }
  return names[schema.type ?? ''] ?? 'values'
}

/** What a schema wants, in words: "a whole number from 1 to 200", "a string or null". */
function expectation(schema: Schema): string {
  if (schema.anyOf) {
    // Elysia accepts a number sent as a numeric string too, by adding a string branch: that is not worth saying.
    const branches = schema.anyOf.filter(
      (branch) => !(branch.type === 'string' && (branch.format === 'integer' || branch.format === 'numeric')),
    )
    return [...new Set(branches.map(expectation))].join(' or ')
  }
  if (schema.const !== undefined) return JSON.stringify(schema.const)
  switch (schema.type) {
    case 'integer':
      return `a whole number${range(schema)}`
    case 'number':
      return `a number${range(schema)}`
    case 'boolean':
      return 'true or false'
    case 'null':
      return 'null'
    case 'object':
      return 'an object'
    case 'array':
      return `${schema.minItems ? 'a non-empty list' : 'a list'}${schema.items ? ` of ${plural(schema.items)}` : ''}`
    case 'string':
      if (schema.maxLength !== undefined) return `a string of at most ${schema.maxLength} characters`
      return schema.minLength ? 'a non-empty string' : 'a string'
    default:
      return 'a valid value'
  }
}

/**
 * Elysia's schema failure as the console's own 400: the first field at fault, named the way the console names
 * fields, and a sentence instead of Elysia's validation dump. (A response failing its schema is the server's bug,
 * not the client's: respond.ts logs it as a 500 and never calls this.)
 */
export function describeValidationError(error: ValidationError): GatewayError {
  const problem = error.valueError
  if (!problem) return invalidRequest(`The request ${error.type} is not valid.`)
  const field = fieldName(problem.path)
  const schema = problem.schema as Schema
  if (!field) return invalidRequest(`The request ${error.type} must be ${expectation(schema)}.`)
  if (typeof schema.error === 'string') return invalidRequest(schema.error, field)
  if (problem.value === undefined) return invalidRequest(`Missing '${field}': expected ${expectation(schema)}.`, field)
  return invalidRequest(`Invalid value for '${field}': expected ${expectation(schema)}.`, field)
}
