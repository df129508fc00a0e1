import type { ProjectRecord, UsageFilter, UsageGroup } from '../records.ts'
import type { Store } from '../repositories.ts'

/**
 * Usage by project is usage by key, summed over each project's keys as they are now: a usage row names its key, and
 * a key is in at most one project. A key moved between projects brings its history with it (the README says so).
 */
export async function projectKeyIds(store: Store, project: ProjectRecord): Promise<string[]> {
  return (await store.keys.list(project.accountId)).filter((key) => key.projectId === project.id).map((key) => key.id)
}

/** Totals per project (by id, as text), largest spend first, with each project; keys in no project are left out. */
export async function totalsByProject(store: Store, filter: UsageFilter): Promise<{ group: UsageGroup; project: ProjectRecord }[]> {
  const [byKey, keys, projects] = await Promise.all([
    store.usage.totalsBy('keyId', filter),
    store.keys.list(filter.accountId),
    store.budgets.listProjects(filter.accountId),
  ])
  const projectOfKey = new Map(keys.map((key) => [key.id, key.projectId]))
  const byProject = new Map<number, UsageGroup>()
  for (const group of byKey) {
    const projectId = projectOfKey.get(group.group)
    if (projectId === null || projectId === undefined) continue
    const sum = byProject.get(projectId) ?? {
      group: String(projectId),
      requests: 0,
      succeeded: 0,
      refused: 0,
      failed: 0,
      inputTokens: 0,
      outputTokens: 0,
      spent: 0,
    }
    for (const field of ['requests', 'succeeded', 'refused', 'failed', 'inputTokens', 'outputTokens', 'spent'] as const)
      sum[field] += group[field]
    byProject.set(projectId, sum)
  }
  const named = new Map(projects.map((project) => [project.id, project]))
  return [...byProject]
    .flatMap(([id, group]) => (named.has(id) ? [{ group, project: named.get(id)! }] : []))
    .sort((a, b) => b.group.spent - a.group.spent)
}
