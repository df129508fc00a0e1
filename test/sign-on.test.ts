import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { AccountRecord } from '../src/domain/records.ts'
import type { Store } from '../src/domain/repositories.ts'
import { startSession } from '../src/domain/sessions.ts'
import type { ClaimRules } from '../src/domain/single-sign-on/claims.ts'
import { type ProvenIdentity, signOn, SignOnRefused } from '../src/domain/single-sign-on/sign-on.ts'
import { createUser, verifyCredentials } from '../src/domain/users.ts'
import { storeBackends } from './support/stores.ts'

/** Just-in-time logins from proven identities, and the sign-in flows, the same on every backend. */
const issuer = 'https://sso.example.com/realms/acme'
const rules: ClaimRules = {
  allowedDomains: ['example.com'],
  roleClaim: 'realm_access.roles',
  accountClaim: 'https://tollgate.example/account',
}
const person = (subject: string, claims: Record<string, unknown>): ProvenIdentity => ({
  issuer,
  subject,
  claims: { sub: subject, email_verified: true, ...claims },
})

async function refusal(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (failure: unknown) => failure,
  )
  if (!(error instanceof SignOnRefused)) throw new Error(`expected a refusal, got ${String(error)}`)
  return error.reason
}

for (const [name, prepare] of storeBackends) {
  describe(`single sign-on: ${name}`, () => {
    let backend: Awaited<ReturnType<typeof prepare>>
    let store: Store
    let acme: AccountRecord
    let globex: AccountRecord

    beforeAll(async () => {
      backend = await prepare()
      store = backend.open()
      await store.migrate()
      acme = await store.accounts.create('acme', 0)
      globex = await store.accounts.create('globex', 0)
    })

    afterAll(async () => {
      await store.close()
      await backend.cleanup()
    })

    test('a first sign-on creates the login: nested role claim, account by name or id, strongest role wins', async () => {
      const ann = await signOn(
        store,
        rules,
        person('ann', {
          email: 'Ann@Example.com',
          realm_access: { roles: ['offline_access', 'account-admin'] },
          'https://tollgate.example/account': 'acme',
        }),
      )
      expect(ann).toMatchObject({
        how: 'created',
        user: { name: 'ann@example.com', role: 'account-admin', accountId: acme.id, passwordHash: '' },
      })
      const bob = await signOn(
        store,
        rules,
        person('bob', { email: 'bob@example.com', realm_access: { roles: ['account-admin', 'admin'] } }),
      )
      expect(bob.user).toMatchObject({ role: 'admin', accountId: null }) // an admin needs no account claim
      const cy = await signOn(
        store,
        rules,
        person('cy', {
          email: 'cy@example.com',
          realm_access: { roles: ['account-admin'] },
          'https://tollgate.example/account': String(globex.id),
        }),
      )
      expect(cy.user.accountId).toBe(globex.id)
      // No password signs in as a single sign-on login.
      expect(await verifyCredentials(store.users, 'ann@example.com', '')).toBeUndefined()
    })

    test('the three roles map from the role claim, strongest first; without a role claim a newcomer is a viewer', async () => {
      const at = (roles: string[]) => ({ realm_access: { roles }, 'https://tollgate.example/account': 'acme' })
      expect((await signOn(store, rules, person('r1', { email: 'r1@example.com', ...at(['Viewer']) }))).user).toMatchObject({
        role: 'viewer',
        accountId: acme.id,
      })
      expect((await signOn(store, rules, person('r2', { email: 'r2@example.com', ...at(['viewer', 'account-admin']) }))).user.role).toBe(
        'account-admin',
      )
      expect((await signOn(store, rules, person('r3', { email: 'r3@example.com', ...at(['viewer', 'ADMIN']) }))).user).toMatchObject({
        role: 'admin',
        accountId: null,
      })
      const unmapped = { ...rules, roleClaim: undefined }
      const newcomer = await signOn(store, unmapped, person('r4', { email: 'r4@example.com', 'https://tollgate.example/account': 'acme' }))
      expect(newcomer.user).toMatchObject({ role: 'viewer', accountId: acme.id })
      // Without a role claim an existing login keeps the role an operator gave it.
      await store.users.update(newcomer.user.id, { name: newcomer.user.name, role: 'account-admin', accountId: acme.id }, Date.now())
      expect(
        (await signOn(store, unmapped, person('r4', { email: 'r4@example.com', 'https://tollgate.example/account': 'acme' }))).user.role,
      ).toBe('account-admin')
    })

    test('a returning identity is found by subject, not email: a changed email renames the login, claims move it', async () => {
      const first = (await store.users.findByName('ann@example.com'))!
      const again = await signOn(
        store,
        rules,
        person('ann', {
          email: 'ann.smith@example.com',
          realm_access: { roles: ['account-admin'] },
          'https://tollgate.example/account': 'globex',
        }),
      )
      expect(again).toMatchObject({
        how: 'returning',
        changed: ['name', 'accountId'],
        user: { id: first.id, name: 'ann.smith@example.com', accountId: globex.id },
      })
      expect(await store.identities.findIdentity(issuer, 'ann')).toMatchObject({ userId: first.id, email: 'ann.smith@example.com' })
      const unchanged = await signOn(
        store,
        rules,
        person('ann', {
          email: 'ann.smith@example.com',
          realm_access: { roles: ['account-admin'] },
          'https://tollgate.example/account': 'globex',
        }),
      )
      expect(unchanged.changed).toEqual([])
    })

    test('each way the claims map to nothing is refused with its reason, and no login is made', async () => {
      const base = { realm_access: { roles: ['account-admin'] }, 'https://tollgate.example/account': 'acme' }
      expect(await refusal(signOn(store, rules, person('d1', { ...base, email: 'd1@example.com', email_verified: false })))).toBe(
        'email_not_verified',
      )
      expect(await refusal(signOn(store, rules, person('d2', { ...base, email: 'd2@example.org' })))).toBe('email_domain_not_allowed')
      expect(await refusal(signOn(store, rules, person('d3', { ...base })))).toBe('no_email')
      expect(
        await refusal(
          signOn(store, rules, person('d4', { ...base, email: 'd4@example.com', realm_access: { roles: ['auditor', 'account'] } })),
        ),
      ).toBe('no_role')
      expect(
        await refusal(
          signOn(store, rules, person('d5', { ...base, email: 'd5@example.com', 'https://tollgate.example/account': undefined })),
        ),
      ).toBe('no_account')
      expect(
        await refusal(
          signOn(store, rules, person('d6', { ...base, email: 'd6@example.com', 'https://tollgate.example/account': 'initech' })),
        ),
      ).toBe('unknown_account')
      expect((await store.users.list()).map((user) => user.name).filter((user) => user.startsWith('d'))).toEqual([])
    })

    test("a local login of the same name is never taken over; an operator's password-less one is linked once", async () => {
      await createUser(store, { name: 'eve@example.com', role: 'admin', password: 'a local password here' })
      expect(await refusal(signOn(store, rules, person('eve', { email: 'eve@example.com', realm_access: { roles: ['admin'] } })))).toBe(
        'name_taken',
      )
      const waiting = await createUser(store, { name: 'fay@example.com', role: 'account-admin', accountId: acme.id, singleSignOn: true })
      // No account claim given: the operator's account stands.
      const fay = await signOn(
        store,
        { ...rules, accountClaim: undefined },
        person('fay', { email: 'fay@example.com', realm_access: { roles: ['account-admin'] } }),
      )
      expect(fay).toMatchObject({ how: 'linked', user: { id: waiting.user.id, accountId: acme.id } })
      // Another identity with the same email cannot link to it again.
      expect(
        await refusal(
          signOn(
            store,
            rules,
            person('fay-2', {
              email: 'fay@example.com',
              realm_access: { roles: ['account-admin'] },
              'https://tollgate.example/account': 'acme',
            }),
          ),
        ),
      ).toBe('name_taken')
    })

    test('a person the claims no longer admit is refused and signed out everywhere', async () => {
      const bob = (await store.users.findByName('bob@example.com'))!
      await startSession(store.sessions, bob.id)
      expect(await refusal(signOn(store, rules, person('bob', { email: 'bob@example.com', realm_access: { roles: [] } })))).toBe('no_role')
      expect(await store.sessions.deleteForUser(bob.id)).toBe(0) // already gone
      expect((await store.users.findById(bob.id))!.role).toBe('admin') // refused, not changed
    })

    test('deleting a login unlinks its identity: the next sign-on creates a new one', async () => {
      const cy = (await store.users.findByName('cy@example.com'))!
      await store.users.delete(cy.id)
      expect(await store.identities.findIdentity(issuer, 'cy')).toBeUndefined()
      const again = await signOn(store, rules, person('cy', { email: 'cy@example.com', realm_access: { roles: ['admin'] } }))
      expect(again.how).toBe('created')
    })

    test('a sign-in flow is taken once, and not after it expired', async () => {
      const flow = {
        nonce: 'n',
        codeVerifier: 'v',
        redirectUri: 'https://gw/console/oidc/callback',
        address: '192.0.2.1',
        createdAt: 1000,
        expiresAt: 2000,
      }
      await store.identities.saveFlow({ ...flow, id: 'a' })
      await store.identities.saveFlow({ ...flow, id: 'b', address: '192.0.2.2' })
      expect(await store.identities.countFlows(1500)).toBe(2)
      expect(await store.identities.countFlows(1500, '192.0.2.2')).toBe(1)
      const [one, two] = await Promise.all([store.identities.takeFlow('a', 1500), store.identities.takeFlow('a', 1500)])
      expect([one, two].filter(Boolean)).toHaveLength(1)
      expect(await store.identities.takeFlow('b', 2000)).toBeUndefined()
      await store.identities.saveFlow({ ...flow, id: 'c' })
      expect(await store.identities.deleteExpiredFlows(2000)).toBe(1)
      expect(await store.identities.countFlows(0)).toBe(0)
    })
  })
}
