import { ConfigError } from './errors.ts'
import { checkModelKinds } from './kind-checks.ts'
import type { ConfigDocument } from './types.ts'

/**
 * What no single setting's schema can see: names used twice, a model naming a provider or fallback that does not
 * exist, settings that exclude or need each other, what a model's kind takes (config/kind-checks.ts). Runs on the
 * checked document, so paths are the YAML's own.
 */
export function checkAcrossFields(document: ConfigDocument): void {
  const providers = collectUnique(
    document.providers.map((provider) => provider.name),
    'providers',
    'name',
  )
  const models = collectUnique(
    document.models.map((model) => model.id),
    'models',
    'id',
  )
  for (const [index, model] of document.models.entries()) {
    const field = `models[${index}]`
    if (model.routes !== undefined && model.provider !== undefined) {
      throw new ConfigError(`${field}.provider`, 'give either provider or routes, not both')
    }
    const named = model.routes?.map((route, place) => ({ provider: route.provider, field: `${field}.routes[${place}].provider` })) ?? [
      { provider: model.provider, field: `${field}.provider` },
    ]
    for (const { provider, field: routeField } of named) {
      if (provider === undefined) throw new ConfigError(routeField, 'is required (or give routes)')
      if (!providers.has(provider)) throw new ConfigError(routeField, `"${provider}" is not a configured provider`)
    }
    for (const fallback of model.fallbacks) {
      if (!models.has(fallback)) throw new ConfigError(`${field}.fallbacks`, `"${fallback}" is not a configured model`)
    }
  }
  checkModelKinds(document.models)
  if (!document.auth.passwords && !document.auth.oidc) {
    throw new ConfigError('auth.passwords', 'false needs auth.oidc: otherwise nobody could sign in to the console')
  }
  // A lease is trusted for the timeout less one beat after each heartbeat: at least two beats must fit in it.
  const { heartbeat_ms: heartbeat, instance_timeout_ms: timeout } = document.ledger
  if (timeout < 2 * heartbeat)
    throw new ConfigError('ledger.instance_timeout_ms', `must be at least twice ledger.heartbeat_ms (${heartbeat})`)
}

/** The names of a list's entries, refusing the second use of one: `providers[2].name: "openai" is used twice`. */
function collectUnique(names: string[], list: string, key: string): Set<string> {
  const seen = new Set<string>()
  for (const [index, name] of names.entries()) {
    if (seen.has(name)) throw new ConfigError(`${list}[${index}].${key}`, `"${name}" is used twice`)
    seen.add(name)
  }
  return seen
}
