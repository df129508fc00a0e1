import type { Json } from '../shared/validate.ts'

/**
 * The REST API takes proto field names in either spelling (`systemInstruction` or `system_instruction`, as
 * Google's curl examples write them); user data inside (function args, schema property names) is left alone.
 */
export function readField(object: Json, name: string): unknown {
  if (object[name] !== undefined) return object[name]
  return object[name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`)]
}
