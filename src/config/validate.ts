/**
 * Tiny readers for untyped YAML values. Each names the exact field at fault, so that a bad config file
 * fails at start with `models[2].price.output: must be a number ≥ 0`, not with a stack trace.
 */
export class ConfigError extends Error {
  constructor(field: string, problem: string) {
    super(`${field}: ${problem}`)
    this.name = 'ConfigError'
  }
}

export type Fields = Record<string, unknown>

export function readObject(value: unknown, field: string): Fields {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new ConfigError(field, 'must be a mapping')
  return value as Fields
}

export function readList(value: unknown, field: string): unknown[] {
  if (value === undefined || value === null) return []
  if (!Array.isArray(value)) throw new ConfigError(field, 'must be a list')
  return value
}

export function readString(value: unknown, field: string, fallback?: string): string {
  if (value === undefined || value === null) {
    if (fallback !== undefined) return fallback
    throw new ConfigError(field, 'is required')
  }
  if (typeof value === 'number') return String(value)
  if (typeof value !== 'string' || value.trim() === '') throw new ConfigError(field, 'must be a non-empty string')
  return value
}

export function readNumber(value: unknown, field: string, fallback: number, options: { min?: number; integer?: boolean } = {}): number {
  if (value === undefined || value === null) return fallback
  const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value
  const min = options.min ?? 0
  if (typeof number !== 'number' || !Number.isFinite(number) || number < min) {
    throw new ConfigError(field, `must be a number ≥ ${min}, got ${JSON.stringify(value)}`)
  }
  if (options.integer && !Number.isInteger(number)) throw new ConfigError(field, `must be a whole number, got ${JSON.stringify(value)}`)
  return number
}

export function readBoolean(value: unknown, field: string, fallback: boolean): boolean {
  if (value === undefined || value === null) return fallback
  if (typeof value !== 'boolean') throw new ConfigError(field, 'must be true or false')
  return value
}

/** Complain about keys we do not know, so a typo (`upstream_modle`) is not silently ignored. */
export function rejectUnknownKeys(fields: Fields, known: readonly string[], field: string): void {
  for (const key of Object.keys(fields)) {
    if (!known.includes(key)) throw new ConfigError(`${field}.${key}`, `unknown setting (expected one of: ${known.join(', ')})`)
  }
}

/** Replace `${NAME}` and `${NAME:-default}` in every string of a parsed document. */
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
    const result: Fields = {}
    for (const [key, item] of Object.entries(value)) result[key] = interpolateEnv(item, env, field ? `${field}.${key}` : key)
    return result
  }
  return value
}
