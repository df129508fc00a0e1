import type { ProviderConfig, ProviderType } from '../config/types.ts'
import type { Transport } from './http.ts'

/** Where an operation's upstream side is made: the provider's config and, for an HTTP upstream, its transport. */
export interface UpstreamSite {
  config: ProviderConfig
  /** Absent for the mock, which answers in-process. */
  transport?: Transport
}

/**
 * How one operation's upstream side is made for each kind of upstream it can serve (operations/<name>/providers);
 * a kind it cannot serve has no entry, and the config refuses a model that would need one (registry.ts).
 */
export type UpstreamFactories = Partial<Record<ProviderType, (site: UpstreamSite) => unknown>>

/** A factory for an HTTP kind of upstream, which always has a transport. */
export function overHttp<Upstream>(make: (transport: Transport) => Upstream): (site: UpstreamSite) => Upstream {
  return (site) => {
    if (!site.transport) throw new Error(`providers: ${site.config.name} (type ${site.config.type}) has no HTTP transport`)
    return make(site.transport)
  }
}
