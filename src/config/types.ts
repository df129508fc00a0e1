import type { StaticDecode, StaticEncode } from '@sinclair/typebox'
import type { configSchema } from './schema/config.ts'

/**
 * The config's types, derived from its schema (config/schema/): the YAML form as it was checked, and the form the code
 * reads. Other layers import only this file, and only its types.
 */

/** tollgate.yaml after the schema accepted it and filled in defaults: snake_case, prices still as written. */
export type ConfigDocument = StaticEncode<typeof configSchema>

/** The config is frozen all the way down (config/freeze.ts); its type says so, so a change is a compile error. */
type DeepReadonly<Value> = Value extends (infer Item)[]
  ? readonly DeepReadonly<Item>[]
  : Value extends object
    ? { readonly [Key in keyof Value]: DeepReadonly<Value[Key]> }
    : Value

export type Config = DeepReadonly<StaticDecode<typeof configSchema>> & {
  /** Where the config came from (a file's path, or "(built-in defaults)"), for messages. */
  readonly source: string
}

export type ProviderConfig = Config['providers'][number]
export type ProviderType = ProviderConfig['type']
export type ModelConfig = Config['models'][number]
/** What a model serves (`kind:`): `chat` or `embedding` (core/model-kinds.ts). */
export type ModelKind = ModelConfig['kind']
export type RoutingConfig = Config['routing']
export type LimitsConfig = Config['limits']
export type TelemetryConfig = NonNullable<Config['telemetry']>
export type AuthConfig = Config['auth']
export type OidcConfig = NonNullable<AuthConfig['oidc']>
