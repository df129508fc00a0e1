import { isObject, type Json } from '../../../../protocols/shared/validate.ts'

/**
 * Gemini's `parameters` and `responseSchema` use its OpenAPI 3.0 subset (`"type":"OBJECT"`, `nullable`,
 * `propertyOrdering`); the IR carries JSON Schema, which every other upstream expects. Unknown keywords pass through.
 */
export function openApiToJsonSchema(schema: Json): Json {
  const result: Json = {}
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'nullable' || key === 'propertyOrdering') continue
    if (key === 'type' && typeof value === 'string') {
      if (value !== 'TYPE_UNSPECIFIED') result.type = value.toLowerCase()
    } else if (key === 'properties' && isObject(value)) {
      result.properties = Object.fromEntries(Object.entries(value).map(([name, property]) => [name, convert(property)]))
    } else if (key === 'items' || key === 'additionalProperties') {
      result[key] = convert(value)
    } else if ((key === 'anyOf' || key === 'oneOf' || key === 'allOf') && Array.isArray(value)) {
      result[key] = value.map(convert)
    } else {
      result[key] = value
    }
  }
  if (schema.nullable === true && typeof result.type === 'string') result.type = [result.type, 'null']
  return result
}

function convert(value: unknown): unknown {
  return isObject(value) ? openApiToJsonSchema(value) : value
}
