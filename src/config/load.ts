import { existsSync, readFileSync } from 'node:fs'
import { basename } from 'node:path'
import { parseUsd } from '../core/money.ts'
import type { Price } from '../core/pricing.ts'
import { type PaidFeature, paidFeatures } from '../core/paid-features.ts'
import type { Config, ModelConfig, ProviderConfig, ProviderType, RouteConfig, RoutingConfig, Timeouts } from './types.ts'
import {
  ConfigError, type Fields, interpolateEnv, readBoolean, readList, readNumber, readObject, readString, rejectUnknownKeys,
} from './validate.ts'

import {
  parseAdmin, parseAuth, parseLedger, parseLimits, parseRedisUrl, parseRetention, parseTasks, parseTelemetry, parseTrustedProxies, readDatabase, readLogLevel, readPort,
} from './sections.ts'

import { describeYamlErrorPlace, locateYamlError } from './yaml-error.ts'

export { ConfigError } from './validate.ts'

const providerTypes: ProviderType[] = ['openai', 'anthropic', 'gemini', 'mock']
const defaultBaseUrls: Record<ProviderType, string> = {
  openai: 'https://api.openai.com/v1',
  anthropic: 'https://api.anthropic.com',
  gemini: 'https://generativelanguage.googleapis.com',
  mock: 'mock://',
}

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
  const path = options.builtIn ? undefined : options.path ?? (env.TOLLGATE_CONFIG || undefined) ?? (existsSync('tollgate.yaml') ? 'tollgate.yaml' : undefined)
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
  const config = parseConfig(interpolateEnv(document ?? {}, env), path ?? '(built-in defaults)')
  if (env.PORT) config.listen.port = readPort(env.PORT, 'PORT')
  if (env.HOST) config.listen.host = env.HOST
  if (env.TOLLGATE_DATABASE) config.database = readDatabase(env.TOLLGATE_DATABASE, 'TOLLGATE_DATABASE')
  return config
}

/** The README's first step for a real set-up starts from the example; say so where it is missing. */
function missingFileHint(path: string): string {
  if (basename(path) !== 'tollgate.yaml') return ''
  if (existsSync('examples/tollgate.yaml')) return ` (start from the example: cp examples/tollgate.yaml ${path})`
  return ' (start from the example config, examples/tollgate.yaml in the Tollgate repository)'
}

export function parseConfig(document: unknown, source = '(inline)'): Config {
  const root = readObject(document, '(root)')
  rejectUnknownKeys(root, ['listen', 'database', 'redis', 'trusted_proxies', 'providers', 'models', 'routing', 'log', 'shutdown', 'limits', 'tasks', 'admin', 'retention', 'telemetry', 'auth', 'ledger'], '(root)')
  const listen = readObject(root.listen ?? {}, 'listen')
  rejectUnknownKeys(listen, ['host', 'port'], 'listen')
  const routing = readObject(root.routing ?? {}, 'routing')
  const providers = readList(root.providers, 'providers').map((item, index) => parseProvider(item, `providers[${index}]`))
  if (providers.length === 0) throw new ConfigError('providers', 'at least one provider is required')
  const providerNames = new Set<string>()
  for (const [index, provider] of providers.entries()) {
    if (providerNames.has(provider.name)) throw new ConfigError(`providers[${index}].name`, `"${provider.name}" is used twice`)
    providerNames.add(provider.name)
  }
  const models = readList(root.models, 'models').map((item, index) => parseModel(item, `models[${index}]`, providerNames))
  const modelIds = new Set<string>()
  for (const [index, model] of models.entries()) {
    if (modelIds.has(model.id)) throw new ConfigError(`models[${index}].id`, `"${model.id}" is used twice`)
    modelIds.add(model.id)
  }
  for (const [index, model] of models.entries()) {
    for (const fallback of model.fallbacks) {
      if (!modelIds.has(fallback)) throw new ConfigError(`models[${index}].fallbacks`, `"${fallback}" is not a configured model`)
    }
  }
  const limits = parseLimits(readObject(root.limits ?? {}, 'limits'))
  const caps = { eventBytes: limits.upstreamEventBytes, bodyBytes: limits.upstreamBodyBytes, errorBytes: limits.upstreamErrorBytes }
  for (const provider of providers) provider.caps = caps
  return {
    listen: {
      host: readString(listen.host, 'listen.host', '127.0.0.1'),
      port: readPort(listen.port, 'listen.port'),
    },
    database: readDatabase(readString(root.database, 'database', 'sqlite:./data/tollgate.db'), 'database'),
    redis: root.redis === undefined ? undefined : parseRedisUrl(readString(root.redis, 'redis')),
    trustedProxies: parseTrustedProxies(root.trusted_proxies),
    providers,
    models,
    routing: parseRouting(routing),
    log: { level: readLogLevel(readObject(root.log ?? {}, 'log')) },
    shutdown: { drainS: readNumber(readObject(root.shutdown ?? {}, 'shutdown').drain_s, 'shutdown.drain_s', 30) },
    limits,
    tasks: parseTasks(readObject(root.tasks ?? {}, 'tasks')),
    admin: parseAdmin(readObject(root.admin ?? {}, 'admin')),
    retention: parseRetention(readObject(root.retention ?? {}, 'retention')),
    ledger: parseLedger(readObject(root.ledger ?? {}, 'ledger')),
    telemetry: root.telemetry === undefined ? undefined : parseTelemetry(readObject(root.telemetry, 'telemetry')),
    auth: parseAuth(readObject(root.auth ?? {}, 'auth')),
    source,
  }
}

function parseRouting(routing: Fields): RoutingConfig {
  rejectUnknownKeys(routing, ['max_attempts', 'cooldown_s', 'window_s', 'min_requests', 'failure_ratio', 'backoff_ms', 'backoff_max_ms', 'max_retry_after_s'], 'routing')
  const failureRatio = readNumber(routing.failure_ratio, 'routing.failure_ratio', 0.5)
  if (failureRatio <= 0 || failureRatio > 1) throw new ConfigError('routing.failure_ratio', 'must be above 0 and at most 1')
  return {
    maxAttempts: readNumber(routing.max_attempts, 'routing.max_attempts', 3, { min: 1, integer: true }),
    cooldownS: readNumber(routing.cooldown_s, 'routing.cooldown_s', 30),
    windowS: readNumber(routing.window_s, 'routing.window_s', 60, { min: 0.001 }),
    minRequests: readNumber(routing.min_requests, 'routing.min_requests', 5, { min: 1, integer: true }),
    failureRatio,
    backoffMs: readNumber(routing.backoff_ms, 'routing.backoff_ms', 100),
    backoffMaxMs: readNumber(routing.backoff_max_ms, 'routing.backoff_max_ms', 2000),
    maxRetryAfterS: readNumber(routing.max_retry_after_s, 'routing.max_retry_after_s', 10),
  }
}

function parseProvider(item: unknown, field: string): ProviderConfig {
  const fields = readObject(item, field)
  rejectUnknownKeys(fields, ['name', 'type', 'base_url', 'api_key', 'headers', 'timeouts', 'passthrough', 'chunk_delay_ms'], field)
  const type = readString(fields.type, `${field}.type`) as ProviderType
  if (!providerTypes.includes(type)) throw new ConfigError(`${field}.type`, `must be one of ${providerTypes.join(', ')}`)
  const baseUrl = readString(fields.base_url, `${field}.base_url`, defaultBaseUrls[type]).replace(/\/+$/, '')
  if (type !== 'mock' && !/^https?:\/\//.test(baseUrl)) throw new ConfigError(`${field}.base_url`, 'must start with http:// or https://')
  const headers: Record<string, string> = {}
  for (const [name, value] of Object.entries(readObject(fields.headers ?? {}, `${field}.headers`))) {
    headers[name] = readString(value, `${field}.headers.${name}`)
  }
  return {
    name: readString(fields.name, `${field}.name`),
    type,
    baseUrl,
    apiKey: fields.api_key === undefined ? undefined : readString(fields.api_key, `${field}.api_key`),
    headers,
    timeouts: parseTimeouts(fields.timeouts, `${field}.timeouts`),
    passthrough: readBoolean(fields.passthrough, `${field}.passthrough`, true),
    chunkDelayMs: readNumber(fields.chunk_delay_ms, `${field}.chunk_delay_ms`, 0),
    caps: { eventBytes: 0, bodyBytes: 0, errorBytes: 0 }, // the root limits, set by parseConfig
  }
}

function parseTimeouts(value: unknown, field: string): Timeouts {
  const fields = readObject(value ?? {}, field)
  rejectUnknownKeys(fields, ['connect_ms', 'first_byte_ms', 'idle_ms', 'total_ms'], field)
  return {
    connectMs: readNumber(fields.connect_ms, `${field}.connect_ms`, 10_000, { min: 1 }),
    firstByteMs: readNumber(fields.first_byte_ms, `${field}.first_byte_ms`, 120_000, { min: 1 }),
    idleMs: readNumber(fields.idle_ms, `${field}.idle_ms`, 120_000, { min: 1 }),
    totalMs: readNumber(fields.total_ms, `${field}.total_ms`, 600_000, { min: 1 }),
  }
}

function parseModel(item: unknown, field: string, providers: Set<string>): ModelConfig {
  const fields = readObject(item, field)
  rejectUnknownKeys(fields, ['id', 'provider', 'upstream_model', 'routes', 'fallbacks', 'price', 'max_output_tokens', 'context_window', 'owned_by', 'allow', 'reasoning'], field)
  const id = readString(fields.id, `${field}.id`)
  let routes: RouteConfig[]
  if (fields.routes !== undefined) {
    if (fields.provider !== undefined) throw new ConfigError(`${field}.provider`, 'give either provider or routes, not both')
    routes = readList(fields.routes, `${field}.routes`).map((route, index) => parseRoute(route, `${field}.routes[${index}]`, id, providers))
    if (routes.length === 0) throw new ConfigError(`${field}.routes`, 'must list at least one route')
  } else {
    routes = [parseRoute({ provider: fields.provider, upstream_model: fields.upstream_model }, field, id, providers)]
  }
  const maxOutputTokens = readNumber(fields.max_output_tokens, `${field}.max_output_tokens`, 4096, { min: 1, integer: true })
  return {
    id,
    routes,
    fallbacks: readList(fields.fallbacks, `${field}.fallbacks`).map((value, index) => readString(value, `${field}.fallbacks[${index}]`)),
    price: parsePrice(fields.price, `${field}.price`),
    batchPrice: parseBatchPrice(fields.price, `${field}.price`),
    maxOutputTokens,
    contextWindow: fields.context_window === undefined ? undefined : readNumber(fields.context_window, `${field}.context_window`, 0, { min: 1, integer: true }),
    ownedBy: readString(fields.owned_by, `${field}.owned_by`, 'tollgate'),
    reasoning: readBoolean(fields.reasoning, `${field}.reasoning`, false),
    allow: readList(fields.allow, `${field}.allow`).map((value, index) => readFeature(value, `${field}.allow[${index}]`)),
  }
}

/** A paid upstream feature the operator lets this model's requests use (billed at the token price only). */
function readFeature(value: unknown, field: string): PaidFeature {
  const name = readString(value, field)
  if (!(paidFeatures as readonly string[]).includes(name)) throw new ConfigError(field, `must be one of ${paidFeatures.join(', ')}`)
  return name as PaidFeature
}

function parseRoute(item: unknown, field: string, modelId: string, providers: Set<string>): RouteConfig {
  const fields: Fields = readObject(item, field)
  const provider = readString(fields.provider, `${field}.provider`)
  if (!providers.has(provider)) throw new ConfigError(`${field}.provider`, `"${provider}" is not a configured provider`)
  return {
    provider,
    upstreamModel: readString(fields.upstream_model, `${field}.upstream_model`, modelId),
    weight: readNumber(fields.weight, `${field}.weight`, 1, { min: 0 }),
    priority: readNumber(fields.priority, `${field}.priority`, 0, { integer: true }),
  }
}

/** `price.batch: { input, output, cached_input?, cache_write? }`: what batch items pay instead of the live price. */
function parseBatchPrice(value: unknown, field: string): Price | undefined {
  const batch = readObject(value, field).batch
  if (batch === undefined || batch === null) return undefined
  return parsePrice(batch, `${field}.batch`)
}

function parsePrice(value: unknown, field: string): Price {
  const fields = readObject(value, field)
  rejectUnknownKeys(fields, ['input', 'output', 'cached_input', 'cache_write', ...(field.endsWith('.batch') ? [] : ['batch'])], field)
  const read = (key: string, fallback?: number): number => {
    const raw = fields[key]
    if (raw === undefined || raw === null) {
      if (fallback !== undefined) return fallback
      throw new ConfigError(`${field}.${key}`, 'is required (USD per 1M tokens)')
    }
    if (typeof raw !== 'number' && typeof raw !== 'string') throw new ConfigError(`${field}.${key}`, 'must be a number (USD per 1M tokens)')
    try {
      const units = parseUsd(raw)
      if (units < 0) throw new Error('must not be negative')
      return units
    } catch (error) {
      throw new ConfigError(`${field}.${key}`, (error as Error).message)
    }
  }
  const input = read('input')
  return { input, output: read('output'), cachedInput: read('cached_input', input), cacheWrite: read('cache_write', input) }
}
