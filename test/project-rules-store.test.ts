import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createAccount } from '../src/domain/accounts.ts'
import type { Store } from '../src/domain/repositories.ts'
import { storeBackends } from './support/stores.ts'

// A project's address rules stored and read back alike on SQLite and PostgreSQL: set with the project, changed,
// cleared, and read with its account's projects (what keys are read with, budgets/governance.ts).
for (const [name, prepare] of storeBackends) {
  describe(`a project's allowed_ips in the store: ${name}`, () => {
    let backend: Awaited<ReturnType<typeof prepare>>
    let store: Store
    let accountId: number

    beforeAll(async () => {
      backend = await prepare()
      store = backend.open()
      await store.migrate()
      accountId = (await createAccount(store.accounts, `rules-${name}`, 0, 'test')).id
    })

    afterAll(async () => {
      await store.close()
      await backend.cleanup()
    })

    test('set, changed, cleared, and read with the account', async () => {
      const project = await store.budgets.createProject({
        accountId,
        name: 'office',
        models: null,
        rpm: null,
        tpm: null,
        concurrency: null,
        allowedIps: ['203.0.113.0/24', '::1'],
        createdAt: 1,
        updatedAt: 1,
      })
      expect(project.allowedIps).toEqual(['203.0.113.0/24', '::1'])
      expect((await store.budgets.updateProject(project.id, { allowedIps: ['10.0.0.0/8'] }, 2))?.allowedIps).toEqual(['10.0.0.0/8'])
      expect((await store.budgets.ofAccounts([accountId])).projects.map((each) => each.allowedIps)).toEqual([['10.0.0.0/8']])
      // An edit of another field leaves the list as it is; null clears it.
      expect((await store.budgets.updateProject(project.id, { rpm: 5 }, 3))?.allowedIps).toEqual(['10.0.0.0/8'])
      expect((await store.budgets.updateProject(project.id, { allowedIps: null }, 4))?.allowedIps).toBeNull()
      expect((await store.budgets.findProject(project.id))?.allowedIps).toBeNull()
    })
  })
}
