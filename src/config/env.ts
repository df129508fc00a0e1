import { ConfigError } from './errors.ts'

/** Replace `${NAME}` and `${NAME:-default}` in every string of a parsed document; an unset NAME without default is named. */
export function interpolateEnv(value: unknown, env: Record<string, string | undefined>, field = ''): unknown {
  if (typeof value === 'string') {
    return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g, (_, name: string, fallback?: string) => {
      const found = env[name]
      if (found !== undefined && found !== '') return found
      if (fallback !== undefined) return fallback
      throw new ConfigError(field || '(root)', `environment variable ${name} is not set`)
    })
  }
  if (Array.isArray(value)) return value.map((item, index) => interpolateEnv(item, env, `${field}[${index}]`))
  if (value !== null && typeof value === 'object') {
    const result: Record<string, unknown> = {}
    for (const [key, item] of Object.entries(value)) result[key] = interpolateEnv(item, env, field ? `${field}.${key}` : key)
    return result
  }
  return value
}
