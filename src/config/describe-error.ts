import { Kind, type TSchema } from '@sinclair/typebox'
import { type ValueError, ValueErrorType } from '@sinclair/typebox/value'

/**
 * What an operator reads about a setting the schema refused, in the words the config used before it had a schema:
 * the expected form, the value given (`must be a number ≥ 0, got "80eighty"`), the allowed words of a choice, the
 * known keys beside an unknown one. The setting's path is added by the caller.
 */
export function describeProblem(error: ValueError): string {
  const { schema, value } = error
  switch (error.type) {
    case ValueErrorType.ObjectRequiredProperty:
      return `is required${unitOf(schema)}`
    case ValueErrorType.ObjectAdditionalProperties:
      return `unknown setting (expected one of: ${Object.keys(schema.properties).join(', ')})`
    default:
      return `${expectation(error)}${unitOf(schema)}${echo(value)}`
  }
}

function expectation({ type, schema, value, message }: ValueError): string {
  switch (type) {
    case ValueErrorType.Object:
      return 'must be a mapping'
    case ValueErrorType.Array:
      return 'must be a list'
    case ValueErrorType.Boolean:
      return 'must be true or false'
    case ValueErrorType.String:
    case ValueErrorType.StringMinLength:
    case ValueErrorType.StringPattern:
      return schema.errorMessage && typeof value === 'string' ? schema.errorMessage : 'must be a non-empty string'
    case ValueErrorType.Union:
      if (isChoice(schema)) return `must be one of ${schema.anyOf.map((option: TSchema) => option.const).join(', ')}`
      return schema.errorMessage ?? 'is not in a form this setting takes'
    case ValueErrorType.Integer:
      return typeof value === 'number' ? `must be a whole number${lowerBound(schema)}` : `must be a number${lowerBound(schema)}`
    case ValueErrorType.Number:
    case ValueErrorType.NumberMinimum:
    case ValueErrorType.IntegerMinimum:
      return `must be a number${lowerBound(schema)}`
    case ValueErrorType.NumberMaximum:
    case ValueErrorType.NumberExclusiveMinimum:
    case ValueErrorType.NumberExclusiveMaximum:
    case ValueErrorType.IntegerMaximum:
    case ValueErrorType.IntegerExclusiveMinimum:
    case ValueErrorType.IntegerExclusiveMaximum:
      return schema.errorMessage ?? `must be ${describeRange(schema)}`
    default:
      return schema.errorMessage ?? `is not valid (${message.toLowerCase()})`
  }
}

/** A fixed set of words (`oneOf` in schema/shapes.ts). */
export function isChoice(schema: TSchema): boolean {
  return schema[Kind] === 'Union' && schema.anyOf.every((option: TSchema) => option[Kind] === 'Literal')
}

function lowerBound(schema: TSchema): string {
  if (schema.minimum !== undefined) return ` ≥ ${schema.minimum}`
  if (schema.exclusiveMinimum !== undefined) return ` above ${schema.exclusiveMinimum}`
  return ''
}

/** A number's bounds in words: "from 0 to 1", "above 0 and at most 1", "≥ 1" (messages and the README's reference). */
export function describeRange(schema: TSchema): string {
  const { minimum, maximum, exclusiveMinimum } = schema
  if (minimum !== undefined && maximum !== undefined) return `from ${minimum} to ${maximum}`
  const atMost = maximum === undefined ? '' : `at most ${maximum}`
  if (exclusiveMinimum !== undefined) return `above ${exclusiveMinimum}${atMost && ` and ${atMost}`}`
  return minimum === undefined ? atMost : `≥ ${minimum}`
}

function unitOf(schema: TSchema): string {
  return schema.unit ? ` (${schema.unit})` : ''
}

/** The value given, when it is short enough to quote (a mapping or a list is not): `got "80eighty"`, `got .inf`. */
function echo(value: unknown): string {
  if (typeof value === 'string') return `, got ${JSON.stringify(value)}`
  if (typeof value === 'number' || typeof value === 'boolean') return `, got ${value}`
  return ''
}
