import type { ModelConfig } from '../config/types.ts'
import type { Provider, Target } from '../core/provider.ts'

/** A model's routes as built once at start: grouped by priority (best first), each target with its weight. */
type Groups = { target: Target; weight: number }[][]

/**
 * Which targets a request may use, in order. Built once from the config, so that a request costs only the weighted
 * draw among routes of equal priority (nothing at all for a model with one route per priority).
 */
export class RoutePlanner {
  private readonly groups = new Map<string, Groups>()
  /** The plans that involve no draw (one route per priority, fallbacks included), built once and shared. */
  private readonly fixed = new Map<string, readonly Target[]>()

  constructor(models: Map<string, ModelConfig>, providers: Map<string, Provider>) {
    for (const model of models.values()) {
      const byPriority = new Map<number, { target: Target; weight: number }[]>()
      for (const route of model.routes) {
        const provider = providers.get(route.provider)
        if (!provider) continue
        const group = byPriority.get(route.priority) ?? []
        group.push({ target: { provider: provider.config, upstreamModel: route.upstreamModel, model }, weight: route.weight })
        byPriority.set(route.priority, group)
      }
      this.groups.set(
        model.id,
        [...byPriority.keys()].sort((a, b) => a - b).map((priority) => byPriority.get(priority)!),
      )
    }
    const drawn = (id: string) => (this.groups.get(id) ?? []).some((group) => group.length > 1)
    for (const model of models.values()) {
      if (!drawn(model.id) && !model.fallbacks.some(drawn)) this.fixed.set(model.id, this.draw(model, Math.random))
    }
  }

  /**
   * Every target a request may use, best first: the model's own routes — the best (lowest) priority first, and within
   * one priority a weighted random order, so traffic splits by weight and a failed route is followed by its
   * siblings — then the routes of each model named in its `fallbacks:`, in the order listed. Fallbacks of fallbacks
   * are not followed, so a config cannot loop. Which of these are healthy is decided per attempt, not here.
   */
  plan(model: ModelConfig, random = Math.random): readonly Target[] {
    return this.fixed.get(model.id) ?? this.draw(model, random)
  }

  private draw(model: ModelConfig, random: () => number): Target[] {
    const targets: Target[] = []
    this.order(model.id, targets, random)
    for (const id of model.fallbacks) if (id !== model.id) this.order(id, targets, random)
    return targets
  }

  /** Every route of every model, each once (for `/status`). */
  allTargets(): Target[] {
    return [...this.groups.values()].flatMap((groups) => groups.flat().map((entry) => entry.target))
  }

  private order(modelId: string, targets: Target[], random: () => number): void {
    for (const group of this.groups.get(modelId) ?? []) {
      if (group.length === 1) {
        targets.push(group[0]!.target)
        continue
      }
      const pool = [...group]
      while (pool.length > 0) {
        const total = pool.reduce((sum, entry) => sum + entry.weight, 0)
        let point = random() * total
        let chosen = pool.length - 1
        for (let index = 0; index < pool.length; index++) {
          point -= pool[index]!.weight
          if (point < 0) {
            chosen = index
            break
          }
        }
        targets.push(pool.splice(chosen, 1)[0]!.target)
      }
    }
  }
}

/** A route's name in logs, metrics and the circuit breaker: `provider/upstream-model`. */
export function routeId(target: Target): string {
  return (target.route ??= `${target.provider.name}/${target.upstreamModel}`)
}
