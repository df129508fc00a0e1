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
