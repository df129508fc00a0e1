import type { StaticDecode, TSchema } from '@sinclair/typebox'
import { TransformDecode, TransformDecodeError, type ValueError, Value, ValueErrorType } from '@sinclair/typebox/value'
import { checkAcrossFields } from './cross-checks.ts'
import { describeProblem } from './describe-error.ts'
import { ConfigError } from './errors.ts'
import { freezeDeeply } from './freeze.ts'
import { prepareValue } from './prepare.ts'
import { configSchema } from './schema/config.ts'
import { SettingProblem } from './schema/shapes.ts'
import { formatSettingPath } from './setting-path.ts'
import type { Config, ConfigDocument } from './types.ts'

/**
 * A parsed YAML document (after `${ENV}` interpolation) → the frozen Config, or a ConfigError naming the first
 * setting at fault. Three passes: the schema (types, bounds, known keys, defaults); each section's decode into the
 * code's form, which makes the checks only code can make (a database URL's form, an address block); then the checks
 * across settings (config/cross-checks.ts). A reload builds a new Config; nothing changes one.
 */
export function parseConfig(document: unknown, source = '(inline)'): Config {
  const checked = checkValue(configSchema, document ?? {}, '(root)')
  const config = decodeValue(configSchema, checked, '(root)')
  checkAcrossFields(checked as ConfigDocument)
  return freezeDeeply({ ...config, source })
}

/** One setting from elsewhere (`PORT`, `TOLLGATE_DATABASE`), checked by its schema and named as `label` in messages. */
export function readSetting<Schema extends TSchema>(schema: Schema, value: unknown, label: string): StaticDecode<Schema> {
  return decodeValue(schema, checkValue(schema, value, label), label)
}

function checkValue(schema: TSchema, value: unknown, label: string): unknown {
  const prepared = prepareValue(schema, value)
  if (Value.Check(schema, prepared)) return prepared // the usual case, without collecting errors
  const error = firstError(schema, prepared)!
  throw new ConfigError(formatSettingPath(error.path, prepared, label), describeProblem(error))
}

/** An unknown key first: a misspelt setting usually also leaves a required one missing, and the typo is the news. */
function firstError(schema: TSchema, value: unknown): ValueError | undefined {
  let first: ValueError | undefined
  for (const error of Value.Errors(schema, value)) {
    if (error.type === ValueErrorType.ObjectAdditionalProperties) return error
    first ??= error
  }
  return first
}

/** `value` passed checkValue: decoded without checking it again (Value.Decode would). */
function decodeValue<Schema extends TSchema>(schema: Schema, value: unknown, label: string): StaticDecode<Schema> {
  try {
    return TransformDecode(schema, [], value)
  } catch (error) {
    if (!(error instanceof TransformDecodeError && error.error instanceof SettingProblem)) throw error
    const pointer = error.error.key === undefined ? error.path : `${error.path}/${error.error.key}`
    throw new ConfigError(formatSettingPath(pointer, value, label), error.error.message)
  }
}
