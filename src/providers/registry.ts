import type { ProviderConfig, ProviderType } from '../config/types.ts'
import type { Provider } from '../core/provider.ts'
import { chatUpstreams } from '../operations/chat/providers/index.ts'
import { anthropicVendor } from './anthropic/index.ts'
import { geminiVendor } from './gemini/index.ts'
import { openAiVendor } from './openai/index.ts'
import { type HttpVendor } from './http-codec.ts'
import { Transport } from './http.ts'
import type { UpstreamFactories } from './upstreams.ts'

/** How each kind of upstream is reached (credentials, refusals); the mock answers in-process and needs none. */
const vendors: Record<ProviderType, HttpVendor | undefined> = {
  openai: openAiVendor,
  anthropic: anthropicVendor,
  gemini: geminiVendor,
  mock: undefined,
}

/**
 * Each operation's upstream side, per kind of upstream: one line per operation. Explicit, because a compiled binary
 * cannot discover folders.
 */
const operations: Record<string, UpstreamFactories> = {
  chat: chatUpstreams,
}

export function createProviders(configs: ProviderConfig[]): Map<string, Provider> {
  const providers = new Map<string, Provider>()
  for (const config of configs) {
    if (!(config.type in vendors)) throw new Error(`providers: type "${config.type}" is not available in this build`)
    const vendor = vendors[config.type]
    const site = { config, transport: vendor && new Transport(config, vendor) }
    const upstreams = new Map<string, unknown>()
    for (const [operation, factories] of Object.entries(operations)) {
      const make = factories[config.type]
      if (make) upstreams.set(operation, make(site))
    }
    providers.set(config.name, { config, upstreams })
  }
  return providers
}
