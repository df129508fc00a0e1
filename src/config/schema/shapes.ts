import {
  type ObjectOptions,
  type SchemaOptions,
  type StaticDecode,
  type StringOptions,
  type TObject,
  type TProperties,
  type TUnsafe,
  Type,
} from '@sinclair/typebox'

/**
 * The building blocks every section of the config schema is made of. Beyond JSON Schema's own keywords, a setting's
 * schema may carry three options, read by the error messages (config/describe-error.ts) and the README's reference
 * (config/reference.ts):
 * - `errorMessage`: what a value of the right type but outside its bounds or form is told ("must be a port number
 *   from 0 to 65535"); a value of the wrong type still gets the plain "must be a number ≥ 0".
 * - `unit`: what a number counts ("USD per 1M tokens"), added to its messages and its reference row.
 * - `defaultText`: a default that depends on other settings ("the model's id"), for the reference.
 */
export interface SettingOptions {
  errorMessage?: string
  unit?: string
  defaultText?: string
}

type Options = ObjectOptions & SettingOptions

/** A mapping of named settings (a section, or one entry of a list): a key it does not name is refused. */
export function entry<Properties extends TProperties>(properties: Properties, options: Options = {}): TObject<Properties> {
  return Type.Object(properties, { additionalProperties: false, ...options })
}

/** A section that may be left out as a whole: then every setting in it takes its default. */
export function section<Properties extends TProperties>(properties: Properties, options: Options = {}): TObject<Properties> {
  return entry(properties, { default: {}, ...options })
}

/** A string with something in it besides spaces (`name: " "`, or `${NAME:-}` with NAME unset, is refused). */
export function text(options: StringOptions & SettingOptions = {}) {
  return Type.String({ pattern: '\\S', ...options })
}

/** One of a fixed set of words, e.g. a log level; the message lists them all. */
export function oneOf<const Values extends readonly string[]>(values: Values, options: SchemaOptions & SettingOptions = {}) {
  const literals = values.map((value) => Type.Literal(value))
  // Typed as its words alone: TypeBox's decoded types handle a union only as a fixed tuple, not a list of literals.
  return Type.Union(literals, options) as unknown as TUnsafe<Values[number]>
}

/** HTTP headers sent with every request: any names, each with a non-empty value. */
export function headers(options: SchemaOptions) {
  return Type.Record(Type.String(), text(), { default: {}, ...options })
}

/** The config is only ever read: a decoded value is never turned back into YAML. */
export function readOnly(): never {
  throw new Error('the config is only read, never written back')
}

/** A setting's value passed its schema but not a check only code can make (a URL form, an address block…). */
export class SettingProblem extends Error {
  /** The key inside the decoded value that is at fault, when the check looks at a whole entry. */
  readonly key?: string

  constructor(problem: string, key?: string) {
    super(problem)
    this.name = 'SettingProblem'
    this.key = key
  }
}

/** Refuse a setting's value from inside a decode; the message gets the setting's path (config/parse.ts). */
export function refuse(problem: string, key?: string): never {
  throw new SettingProblem(problem, key)
}

type CamelCase<Name extends string> = Name extends `${infer Head}_${infer Tail}` ? `${Head}${Capitalize<CamelCase<Tail>>}` : Name
type CamelKeys<Fields> = { [Key in keyof Fields as Key extends string ? CamelCase<Key> : Key]: Fields[Key] }

/** YAML spells settings `max_attempts`, the code `maxAttempts`: the same section with its keys renamed. */
function camelKeys<Fields extends object>(fields: Fields): CamelKeys<Fields> {
  const renamed: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(fields)) renamed[key.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase())] = value
  return renamed as CamelKeys<Fields>
}

/** A section whose settings the code reads under camelCase names and nothing else changes. */
export function renamedSection<Properties extends TProperties>(properties: Properties, options: Options = {}) {
  return Type.Transform(section(properties, options))
    .Decode((fields: StaticDecode<TObject<Properties>>) => camelKeys(fields))
    .Encode(readOnly)
}
