import type { ProviderConfig, ProviderType } from '../config/types.ts'
import { createAnthropicProvider } from './anthropic/index.ts'
import { createGeminiProvider } from './gemini/index.ts'
import { createMockProvider } from './mock/index.ts'
import { createOpenAiProvider } from './openai/index.ts'
import type { Provider } from '../core/provider.ts'

/** One line per provider type: a compiled binary cannot discover folders, so the registry is explicit. */
const factories: Partial<Record<ProviderType, (config: ProviderConfig) => Provider>> = {
  openai: createOpenAiProvider,
  anthropic: createAnthropicProvider,
  gemini: createGeminiProvider,
  mock: createMockProvider,
}

export function createProviders(configs: readonly ProviderConfig[]): Map<string, Provider> {
  const providers = new Map<string, Provider>()
  for (const config of configs) {
    const factory = factories[config.type]
    if (!factory) throw new Error(`providers: type "${config.type}" is not available in this build`)
    providers.set(config.name, factory(config))
  }
  return providers
}
