import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { sessionCookieName } from '../../src/console/server/cookies.ts'
import type { UserRole } from '../../src/domain/records.ts'
import type { Store } from '../../src/domain/repositories.ts'
import { startSession } from '../../src/domain/sessions.ts'

/** What the README's role matrix says a role may do with a permission (refused with a 403 or not), and its routes. */
export type Matrix = Map<string, Record<UserRole, boolean> & { routes: string[] }>

/**
 * The README's "Roles" table, read as the test's expectation, so the table people read and what the gateway does
 * cannot drift apart: a cell "403" refuses, anything else ("✓ …", "own account") allows; the routes column lists
 * each route of the permission as `METHOD /path`.
 */
export function readReadmeMatrix(): Matrix {
  const readme = readFileSync(join(import.meta.dir, '..', '..', 'README.md'), 'utf8')
  const section = readme.slice(readme.indexOf('### Roles'), readme.indexOf('### Single sign-on'))
  const matrix: Matrix = new Map()
  for (const line of section.split('\n')) {
    const match = /^\| `([a-z:]+)` \|/.exec(line)
    if (!match) continue
    const cells = line
      .split('|')
      .slice(1, -1)
      .map((cell) => cell.trim())
    if (cells.length !== 5) throw new Error(`README role matrix: expected 5 cells in ${line}`)
    const [admin, accountAdmin, viewer] = cells.slice(2).map((cell) => cell !== '403') as [boolean, boolean, boolean]
    // `PATCH /keys/{id}`: a route as the table lists it, under /console/api and /admin/api alike.
    const routes = [...cells[1]!.matchAll(/`([A-Z]+ \/[^`]*)`/g)].map((found) => found[1]!)
    matrix.set(match[1]!, { admin, 'account-admin': accountAdmin, viewer, routes })
  }
  return matrix
}

/** Someone calling a route: a console login of a role (of one account, or of none for an admin), an admin token, or nobody. */
export interface Caller {
  label: string
  door: 'console' | 'admin' | 'both'
  /** The role the matrix is read for; undefined: nobody (every answer is a 401). */
  role?: UserRole
  /** The one account the caller may see; undefined: every account. */
  accountId?: number
  /** Fresh credentials for one request (a console login gets a new login and session each time, so nothing leaks between probes). */
  headers(): Promise<Record<string, string>>
}

/** The known password of every matrix login, hashed once (argon2 per probe would be slow for nothing). */
export const matrixPassword = 'the-matrix-password-1'

let made = 0

/** A console login of `role` made for one probe: its own login and session, so a sign-out or password change touches only it. */
export function consoleCaller(
  store: Store,
  passwordHash: string,
  label: string,
  role: UserRole,
  account?: { id: number; name: string },
): Caller {
  return {
    label,
    door: 'console',
    role,
    accountId: account?.id,
    async headers() {
      const now = Date.now()
      const user = await store.users.create({
        name: `${account ? account.name : 'root'}-login-${++made}`,
        role,
        accountId: account?.id ?? null,
        passwordHash,
        createdAt: now,
        updatedAt: now,
      })
      const { token, session } = await startSession(store.sessions, user.id)
      return { cookie: `${sessionCookieName}=${token}`, 'x-csrf-token': session.csrfToken }
    },
  }
}

/** An admin token acts as a role on every account: `read` as a viewer, `full` as an admin. */
export function adminTokenCaller(label: string, role: UserRole, secret: string): Caller {
  return { label, door: 'admin', role, headers: async () => ({ authorization: `Bearer ${secret}` }) }
}

export const nobody: Caller = { label: 'nobody', door: 'both', headers: async () => ({}) }

/** Everything an answer could leak, read whole: accounts and balances, keys, logins, tasks and webhooks. A refused change changes none of it. */
export async function fingerprint(store: Store, taskIds: string[], tasks: { findTask(id: string): Promise<unknown> }): Promise<string> {
  const accounts = await store.accounts.list()
  const keys = (await Promise.all(accounts.map((account) => store.keys.list(account.id)))).flat().map(({ lastUsedAt: _, ...key }) => key)
  return JSON.stringify([
    accounts,
    keys,
    await store.users.list(),
    await Promise.all(taskIds.map((id) => tasks.findTask(id))),
    await store.webhooks.list(),
    await store.budgets.listProjects(),
    await store.budgets.listBudgets(),
  ])
}

/** How the README names a route: `PATCH /keys/{id}` for PATCH /console/api/keys/:id and PATCH /admin/api/keys/:id. */
export function readmeName(method: string, path: string): string {
  return `${method} ${path.replace(/^\/(console|admin)\/api/, '').replace(/:(\w+)/g, '{$1}')}`
}
