import type { Config, ProviderConfig, ProviderType } from '../config/types.ts'
import { ConfigError } from '../config/errors.ts'
import { modelKinds } from '../core/model-kinds.ts'
import type { Provider } from '../core/provider.ts'
import { chatUpstreams } from '../operations/chat/providers/index.ts'
import { embeddingsUpstreams } from '../operations/embeddings/providers/index.ts'
import { imagesUpstreams } from '../operations/images/providers/index.ts'
import { rerankUpstreams } from '../operations/rerank/providers/index.ts'
import { speechUpstreams } from '../operations/speech/providers/index.ts'
import { transcriptionUpstreams } from '../operations/transcription/providers/index.ts'
import { anthropicVendor } from './anthropic/index.ts'
import { geminiVendor } from './gemini/index.ts'
import { openAiVendor } from './openai/index.ts'
import { type HttpVendor } from './http-codec.ts'
import { Transport, type TransportOptions } from './http.ts'
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
  embeddings: embeddingsUpstreams,
  images: imagesUpstreams,
  rerank: rerankUpstreams,
  speech: speechUpstreams,
  transcription: transcriptionUpstreams,
}

/**
 * Every configured provider's upstream sides. `transport`: how HTTP upstreams are reached (the socket client's
 * ceiling); a reload makes new ones, and the old ones' idle connections close by themselves (http1-client.ts).
 */
export function createProviders(configs: readonly ProviderConfig[], transport: TransportOptions = {}): Map<string, Provider> {
  const providers = new Map<string, Provider>()
  for (const config of configs) {
    if (!(config.type in vendors)) throw new Error(`providers: type "${config.type}" is not available in this build`)
    const vendor = vendors[config.type]
    const site = { config, transport: vendor && new Transport(config, vendor, transport) }
    const upstreams = new Map<string, unknown>()
    for (const [operation, factories] of Object.entries(operations)) {
      const make = factories[config.type]
      if (make) upstreams.set(operation, make(site))
    }
    providers.set(config.name, { config, upstreams })
  }
  return providers
}

/**
 * A model routed to a kind of upstream that cannot serve what the model is (an embedding model on an Anthropic
 * provider) would fail every request it got: the config is refused at start (and on reload) instead, naming it.
 */
export function refuseUnservedModels(config: Config): void {
  const types = new Map(config.providers.map((provider) => [provider.name, provider.type]))
  config.models.forEach((model, index) => {
    const operation = modelKinds[model.kind].operation
    model.routes.forEach((route, position) => {
      const type = types.get(route.provider)!
      if (operations[operation]?.[type]) return
      const field = model.routes.length === 1 ? `models[${index}].provider` : `models[${index}].routes[${position}].provider`
      throw new ConfigError(
        field,
        `the model "${model.id}" is of kind ${model.kind}, but its provider "${route.provider}" is of type ${type}, which serves no ${operation}`,
      )
    })
  })
}
