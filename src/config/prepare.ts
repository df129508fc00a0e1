import { Kind, type TSchema } from '@sinclair/typebox'

type Fields = Record<string, unknown>

const isMapping = (value: unknown): value is Fields => value !== null && typeof value === 'object' && !Array.isArray(value)

/**
 * A copy of a parsed YAML document in the form its schema checks, changed only where YAML and `${ENV}` interpolation
 * blur the types: an empty or null setting (`listen:` with nothing under it) counts as absent; a number or switch
 * written as text ("8080" from `port: ${PORT}`, "false") is a number or a switch; a number where text is expected
 * (`upstream_model: 4`) is text. Nothing else is converted: `1.5` for a whole number or `yes` for a switch is
 * refused, never rounded or guessed. A setting left out takes its schema's default (a section's default `{}` then
 * fills in the section's own defaults). Copies, so the caller's document (the built-in defaults, a test's) is never
 * changed. (TypeBox's Value.Default would fill defaults, but it turns a list given for a section into a mapping,
 * `{0: …}`, whose message then names a key "0" instead of saying a mapping was expected.)
 */
export function prepareValue(schema: TSchema, value: unknown): unknown {
  switch (schema[Kind]) {
    case 'Object': {
      if (!isMapping(value)) return value
      const result: Fields = {}
      for (const [key, item] of Object.entries(value)) {
        if (item === null || item === undefined) continue
        const property: TSchema | undefined = schema.properties[key]
        result[key] = property ? prepareValue(property, item) : item
      }
      for (const [key, property] of Object.entries(schema.properties as Record<string, TSchema>)) {
        if (!(key in result) && property.default !== undefined) result[key] = prepareValue(property, structuredClone(property.default))
      }
      return result
    }
    case 'Record': {
      if (!isMapping(value)) return value
      const [item] = Object.values(schema.patternProperties as Record<string, TSchema>)
      return Object.fromEntries(Object.entries(value).map(([key, entry]) => [key, prepareValue(item!, entry)]))
    }
    case 'Array':
      return Array.isArray(value) ? value.map((item) => prepareValue(schema.items, item)) : value
    case 'Number':
    case 'Integer':
      return typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value)) ? Number(value) : value
    case 'String':
      return typeof value === 'number' ? String(value) : value
    case 'Boolean':
      return value === 'true' ? true : value === 'false' ? false : value
    default:
      return value
  }
}
