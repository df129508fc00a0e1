import type { ModelConfig } from '../config/types.ts'
import type { Provider, Target } from '../providers/types.ts'

/**
 * The order in which to try a model's routes: the best (lowest) priority first, and within one priority a
 * weighted random order, so traffic splits by weight and a failed route is followed by its siblings.
 */
export function orderRoutes(model: ModelConfig, providers: Map<string, Provider>, random = Math.random): Target[] {
  const byPriority = new Map<number, ModelConfig['routes']>()
  for (const route of model.routes) byPriority.set(route.priority, [...(byPriority.get(route.priority) ?? []), route])
  const targets: Target[] = []
  for (const priority of [...byPriority.keys()].sort((a, b) => a - b)) {
    const pool = [...byPriority.get(priority)!]
    while (pool.length > 0) {
      const total = pool.reduce((sum, route) => sum + route.weight, 0)
      let point = random() * total
      let chosen = pool.length - 1
      for (let index = 0; index < pool.length; index++) {
        point -= pool[index]!.weight
        if (point < 0) { chosen = index; break }
      }
      const [route] = pool.splice(chosen, 1)
      const provider = providers.get(route!.provider)
      if (provider) targets.push({ provider: provider.config, upstreamModel: route!.upstreamModel, model })
    }
  }
  return targets
}

/**
 * Every target a request may use, best first: the model's own routes (see `orderRoutes`), then the routes of each
 * model named in its `fallbacks:`, in the order listed. Fallbacks of fallbacks are not followed, so a config cannot
 * loop. Which of these are healthy is decided per attempt (the circuit breaker), not here.
 */
export function planTargets(model: ModelConfig, models: Map<string, ModelConfig>, providers: Map<string, Provider>, random = Math.random): Target[] {
  const targets = orderRoutes(model, providers, random)
  for (const id of model.fallbacks) {
    const fallback = models.get(id)
    if (fallback && fallback.id !== model.id) targets.push(...orderRoutes(fallback, providers, random))
  }
  return targets
}

/** A route's name in logs, metrics and the circuit breaker: `provider/upstream-model`. */
export function routeId(target: Target): string {
  return `${target.provider.name}/${target.upstreamModel}`
}
