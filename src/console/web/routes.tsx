import type { FunctionComponent } from 'preact'
import { can, seesEveryAccount } from './access.ts'
import { Empty } from './components/states.tsx'
import { PageHeader } from './layout.tsx'
import { AccountDetail } from './pages/account-detail.tsx'
import { Audit } from './pages/audit.tsx'
import { Accounts } from './pages/accounts.tsx'
import { Balance } from './pages/balance.tsx'
import { Budgets } from './pages/budgets.tsx'
import { KeyDetail } from './pages/key-detail.tsx'
import { Keys } from './pages/keys.tsx'
import { Logins } from './pages/logins.tsx'
import { Models } from './pages/models.tsx'
import { Password } from './pages/password.tsx'
import { TaskDetail } from './pages/task-detail.tsx'
import { Tasks } from './pages/tasks.tsx'
import { NewKey } from './pages/new-key.tsx'
import { Overview } from './pages/overview.tsx'
import { Usage } from './pages/usage.tsx'
import { Webhooks } from './pages/webhooks.tsx'
import { matchPath, useLocation } from './router.ts'
import type { SessionInfo } from './types.ts'

export interface PageProps {
  session: SessionInfo
  params: Record<string, string>
  search: URLSearchParams
}

type Audience = (session: SessionInfo) => boolean
const everyone: Audience = () => true
const allowed =
  (permission: string): Audience =>
  (session) =>
    can(session, permission)

/** Each page and who may open it; anyone else gets "Page not found", as for an address that does not exist. */
const routes: [string, FunctionComponent<PageProps>, Audience][] = [
  ['/console', Overview, everyone],
  ['/console/keys', Keys, everyone],
  ['/console/keys/new', NewKey, allowed('keys:write')],
  ['/console/keys/:id', KeyDetail, everyone],
  ['/console/budgets', Budgets, allowed('budgets:read')],
  ['/console/usage', Usage, everyone],
  ['/console/models', Models, everyone],
  ['/console/tasks', Tasks, everyone],
  ['/console/tasks/:id', TaskDetail, everyone],
  ['/console/password', Password, everyone],
  ['/console/balance', Balance, (session) => !seesEveryAccount(session)],
  ['/console/accounts', Accounts, seesEveryAccount],
  ['/console/accounts/:id', AccountDetail, seesEveryAccount],
  ['/console/logins', Logins, allowed('users:read')],
  ['/console/audit', Audit, allowed('audit:read')],
  ['/console/webhooks', Webhooks, allowed('webhooks:read')],
]

export function Routes({ session }: { session: SessionInfo }) {
  const { path, search } = useLocation()
  for (const [pattern, Page, audience] of routes) {
    const params = matchPath(pattern, path)
    if (!params) continue
    // A page the role may not open is not there for it, even when a later pattern (`/console/keys/:id`) would match.
    if (!audience(session)) break
    return <Page session={session} params={params} search={search} />
  }
  return (
    <>
      <PageHeader title="Page not found" />
      <Empty>
        <p>There is nothing at this address.</p>
        <p>
          <a href="/console">Go to the overview</a>
        </p>
      </Empty>
    </>
  )
}
