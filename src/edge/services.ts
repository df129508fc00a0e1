import type { Server } from 'bun'
import type { Config } from '../config/types.ts'
import type { Logger } from '../core/logger.ts'
import type { Relay } from '../relay/relay.ts'
import type { Store } from '../domain/repositories.ts'
import type { KeyCache } from '../domain/key-cache.ts'
import type { Ledger } from '../domain/ledger.ts'

/** Everything a route needs, built once at start and handed to each plugin as plain values. */
export interface Services {
  config: Config
  store: Store
  keys: KeyCache
  ledger: Ledger
  relay: Relay
  logger: Logger
  /** The listening server, once there is one: it alone knows a request's peer address (client-address.ts). */
  server?: Server<unknown>
}
