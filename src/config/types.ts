import type { Price } from '../core/pricing.ts'

export type ProviderType = 'openai' | 'anthropic' | 'gemini' | 'mock'

export interface Timeouts {
  connectMs: number
  firstByteMs: number
  idleMs: number
  totalMs: number
}

export interface ProviderConfig {
  name: string
  type: ProviderType
  baseUrl: string
  apiKey?: string
  /** Extra headers sent upstream on every request (organisation ids, proxies' own auth…). */
  headers: Record<string, string>
  timeouts: Timeouts
  /** Same-protocol requests are forwarded byte for byte unless this is false. */
  passthrough: boolean
  /** Mock only: milliseconds between streamed chunks. */
  chunkDelayMs: number
}

export interface RouteConfig {
  provider: string
  upstreamModel: string
  weight: number
  priority: number
}

export interface ModelConfig {
  id: string
  routes: RouteConfig[]
  fallbacks: string[]
  price: Price
  maxOutputTokens: number
  contextWindow?: number
  ownedBy: string
}

export interface Config {
  listen: { host: string; port: number }
  database: string
  redis?: string
  providers: ProviderConfig[]
  models: ModelConfig[]
  routing: { maxAttempts: number; cooldownS: number }
  log: { level: string }
  shutdown: { drainS: number }
  /** Where the config came from, for messages. */
  source: string
}
