import type { Config } from '../config/types.ts'
import type { Provider } from '../core/provider.ts'
import type { Logger } from '../core/logger.ts'
import type { Ledger } from '../domain/ledger.ts'
import { Relay } from '../relay/relay.ts'

/**
 * The relay batch items run through: the live relay's routes, fallbacks, key limits and circuit breaker (shared), but
 * every model priced at its `price.batch` when the config gives one. Holds and settlements are the live ledger's.
 */
export function createBatchRelay(config: Config, live: Relay, providers: Map<string, Provider>, ledger: Ledger, logger: Logger): Relay {
  return new Relay({ config: batchConfigOf(config), providers, ledger, logger, shareWith: live, recordRefusals: false })
}

/** The config with every model priced at its `price.batch` where one is given (a reload applies it again). */
export function batchConfigOf(config: Config): Config {
  return { ...config, models: config.models.map((model) => (model.batchPrice ? { ...model, price: model.batchPrice } : model)) }
}
