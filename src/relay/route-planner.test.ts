import { expect, test } from 'bun:test'
import { parseConfig } from '../config/load.ts'
import { createProviders } from '../providers/registry.ts'
import { routeId, RoutePlanner } from './route-planner.ts'

const config = parseConfig({
  providers: [
    { name: 'a', type: 'mock' },
    { name: 'b', type: 'mock' },
    { name: 'c', type: 'mock' },
  ],
  models: [
    {
      id: 'smart',
      fallbacks: ['cheap'],
      price: { input: 1, output: 2 },
      routes: [
        { provider: 'a', upstream_model: 'x', weight: 3 },
        { provider: 'b', weight: 1 },
        { provider: 'c', priority: 1 },
      ],
    },
    { id: 'cheap', provider: 'c', upstream_model: 'tiny', fallbacks: ['smart'], price: { input: 0.1, output: 0.2 } },
  ],
})
const models = new Map(config.models.map((model) => [model.id, model]))
const planner = new RoutePlanner(models, createProviders(config.providers))

test('priority first, weights within a priority, then the fallback models, never looping back', () => {
  const firsts = new Map<string, number>()
  // A deterministic spread of random numbers stands in for Math.random.
  for (let step = 0; step < 400; step++) {
    const plan = planner.plan(models.get('smart')!, () => (step + 0.5) / 400)
    expect(plan.map(routeId).slice(2)).toEqual(['c/smart', 'c/tiny'])
    expect(plan.at(-1)!.model.id).toBe('cheap')
    firsts.set(routeId(plan[0]!), (firsts.get(routeId(plan[0]!)) ?? 0) + 1)
  }
  expect(firsts.get('a/x')).toBe(300) // weight 3 of 4
  expect(firsts.get('b/smart')).toBe(100)
  // cheap falls back to smart's own routes, but not to smart's fallbacks (cheap again).
  const cheap = planner.plan(models.get('cheap')!).map(routeId)
  expect(cheap[0]).toBe('c/tiny')
  expect(cheap.slice(1, 3).sort()).toEqual(['a/x', 'b/smart'])
  expect(cheap.slice(3)).toEqual(['c/smart'])
})
