import { existsSync, readFileSync } from 'node:fs'
import { basename } from 'node:path'
import { interpolateEnv } from './env.ts'
import { ConfigError } from './errors.ts'
import { freezeDeeply } from './freeze.ts'
import { parseConfig, readSetting } from './parse.ts'
import { databaseSchema, portSchema } from './schema/server.ts'
import type { Config } from './types.ts'
import { describeYamlErrorPlace, locateYamlError } from './yaml-error.ts'

export { ConfigError } from './errors.ts'
export { parseConfig } from './parse.ts'

/** What runs when there is no config file: SQLite in ./data and the built-in mock provider. */
export const defaultDocument = {
  listen: { host: '127.0.0.1', port: 8080 },
  database: 'sqlite:./data/tollgate.db',
  providers: [{ name: 'mock', type: 'mock', chunk_delay_ms: 25 }],
  models: [
    { id: 'mock-1', provider: 'mock', price: { input: 1, output: 2, cached_input: 0.1 }, max_output_tokens: 4096 },
    { id: 'mock-fast', provider: 'mock', price: { input: 0.1, output: 0.2 }, max_output_tokens: 1024 },
  ],
}

export interface LoadOptions {
  /** `--config FILE`; when absent: $TOLLGATE_CONFIG, then ./tollgate.yaml, then the defaults. */
  path?: string
  env?: Record<string, string | undefined>
  /** Read no file at all, not even ./tollgate.yaml: the built-in defaults (the demo runs on them, whatever is here). */
  builtIn?: boolean
}

export function loadConfig(options: LoadOptions = {}): Config {
  const env = options.env ?? process.env
  // An empty TOLLGATE_CONFIG is unset (as PORT, HOST and TOLLGATE_DATABASE are), never a file named "".
  const path = options.builtIn ? undefined : (options.path ?? (env.TOLLGATE_CONFIG || undefined) ?? findLocalConfig())
  let document: unknown = defaultDocument
  if (path !== undefined) {
    if (!existsSync(path)) throw new ConfigError(path, `config file not found${missingFileHint(path)}`)
    const text = readFileSync(path, 'utf8')
    try {
      document = Bun.YAML.parse(text)
    } catch (error) {
      const reason = (error as Error).message.replace(/^YAML Parse error: /, '')
      const place = locateYamlError(text)
      throw new ConfigError(path, `not valid YAML: ${reason}${place ? ` at ${describeYamlErrorPlace(place)}` : ''}`)
    }
  }
  return overrideFromEnv(parseConfig(interpolateEnv(document ?? {}, env), path ?? '(built-in defaults)'), env)
}

/** PORT, HOST and TOLLGATE_DATABASE win over the file; each is checked as its setting is, and named in messages. */
function overrideFromEnv(config: Config, env: Record<string, string | undefined>): Config {
  if (!env.PORT && !env.HOST && !env.TOLLGATE_DATABASE) return config
  return freezeDeeply({
    ...config,
    listen: {
      host: env.HOST || config.listen.host,
      port: env.PORT ? readSetting(portSchema, env.PORT, 'PORT') : config.listen.port,
    },
    database: env.TOLLGATE_DATABASE ? readSetting(databaseSchema, env.TOLLGATE_DATABASE, 'TOLLGATE_DATABASE') : config.database,
  })
}

const findLocalConfig = () => (existsSync('tollgate.yaml') ? 'tollgate.yaml' : undefined)

/** The README's first step for a real set-up starts from the example; say so where it is missing. */
function missingFileHint(path: string): string {
  if (basename(path) !== 'tollgate.yaml') return ''
  if (existsSync('examples/tollgate.yaml')) return ` (start from the example: cp examples/tollgate.yaml ${path})`
  return ' (start from the example config, examples/tollgate.yaml in the Tollgate repository)'
}
