import { systemActor } from '../../src/domain/actor.ts'
import type { NewBudget } from '../../src/domain/budgets/service.ts'
import type { Gateway } from '../../src/gateway.ts'

/**
 * A model whose worst case is exactly its cost: input is free and the mock answers with `max_output_tokens` (3)
 * tokens to any prompt of a few words, at $1 000 per million output tokens — $0.003 a request, held and billed alike.
 */
export const exactModel = { id: 'exact', provider: 'mock', price: { input: 0, output: 1000 }, max_output_tokens: 3 }
export const exactCostUsd = 0.003

export const operator = systemActor('test')

/** A project of the gateway's account and a budget on it, in force on this instance as soon as this resolves. */
export async function projectWithBudget(gateway: Gateway, accountId: number, name: string, budget: Omit<NewBudget, 'accountId' | 'scope'>) {
  const service = gateway.services.budgetService
  const project = await service.createProject({ accountId, name }, operator)
  const made = await service.createBudget({ ...budget, accountId, scope: 'project', projectId: project.id }, operator)
  return { project, budget: made }
}

export function exactChat(url: string, secret: string): Promise<Response> {
  return fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'exact', messages: [{ role: 'user', content: 'say something please' }] }),
  })
}
