import type { FunctionComponent } from 'preact'
import { Empty } from './components/states.tsx'
import { PageHeader } from './layout.tsx'
import { AccountDetail } from './pages/account-detail.tsx'
import { Accounts } from './pages/accounts.tsx'
import { Balance } from './pages/balance.tsx'
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
import { matchPath, useLocation } from './router.ts'
import type { SessionInfo } from './types.ts'

export interface PageProps {
  session: SessionInfo
  params: Record<string, string>
  search: URLSearchParams
}

const routes: [string, FunctionComponent<PageProps>, 'admin' | 'account' | 'all'][] = [
  ['/console', Overview, 'all'],
  ['/console/keys', Keys, 'all'],
  ['/console/keys/new', NewKey, 'all'],
  ['/console/keys/:id', KeyDetail, 'all'],
  ['/console/usage', Usage, 'all'],
  ['/console/models', Models, 'all'],
  ['/console/tasks', Tasks, 'all'],
  ['/console/tasks/:id', TaskDetail, 'all'],
  ['/console/password', Password, 'all'],
  ['/console/balance', Balance, 'account'],
  ['/console/accounts', Accounts, 'admin'],
  ['/console/accounts/:id', AccountDetail, 'admin'],
  ['/console/logins', Logins, 'admin'],
]

export function Routes({ session }: { session: SessionInfo }) {
  const { path, search } = useLocation()
  for (const [pattern, Page, audience] of routes) {
    const params = matchPath(pattern, path)
    if (params && (audience === 'all' || audience === session.user.role)) return <Page session={session} params={params} search={search} />
  }
  return (
    <>
      <PageHeader title="Page not found" />
      <Empty><p>There is nothing at this address.</p><p><a href="/console">Go to the overview</a></p></Empty>
    </>
  )
}
