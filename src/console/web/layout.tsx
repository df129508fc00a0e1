import type { ComponentChildren } from 'preact'
import { useEffect, useRef, useState } from 'preact/hooks'
import { can, describeRole, seesEveryAccount } from './access.ts'
import { callApi } from './api.ts'
import { interceptLinks, useLocation } from './router.ts'
import type { SessionInfo } from './types.ts'

/** The pages this login may open, in the order of its work; what it may not do is not offered at all. */
function navigationFor(session: SessionInfo): [string, string][] {
  const pages: [string, string][] = [['/console', 'Overview']]
  if (seesEveryAccount(session)) pages.push(['/console/accounts', 'Accounts'])
  pages.push(['/console/keys', 'Keys'])
  if (can(session, 'budgets:read')) pages.push(['/console/budgets', 'Budgets'])
  pages.push(['/console/usage', 'Usage'], ['/console/tasks', 'Tasks'], ['/console/models', 'Models'])
  if (can(session, 'users:read')) pages.push(['/console/logins', 'Logins'])
  if (can(session, 'audit:read')) pages.push(['/console/audit', 'Audit log'])
  if (can(session, 'webhooks:read')) pages.push(['/console/webhooks', 'Webhooks'])
  if (!seesEveryAccount(session)) pages.push(['/console/balance', 'Balance'])
  return pages
}

function isCurrent(href: string, path: string): boolean {
  return href === '/console' ? path === '/console' : path === href || path.startsWith(`${href}/`)
}

/** Header, navigation and the page. Focus moves to the page on navigation, so keyboard users start there. */
export function Layout({ session, onSignedOut, children }: { session: SessionInfo; onSignedOut: () => void; children: ComponentChildren }) {
  const { path } = useLocation()
  const root = useRef<HTMLDivElement>(null)
  const main = useRef<HTMLElement>(null)
  const first = useRef(true)
  const [signingOut, setSigningOut] = useState(false)
  useEffect(() => interceptLinks(root.current!), [])
  useEffect(() => {
    if (first.current) first.current = false
    else main.current?.focus()
  }, [path])
  const signOut = async () => {
    setSigningOut(true)
    await callApi('DELETE', '/session').catch(() => undefined)
    onSignedOut()
  }
  return (
    <div ref={root} class="layout">
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <header class="topbar">
        <a class="brand" href="/console">
          <span class="brand-mark" aria-hidden="true">
            T
          </span>
          Tollgate
        </a>
        <nav aria-label="Main">
          <ul>
            {navigationFor(session).map(([href, label]) => (
              <li key={href}>
                <a href={href} aria-current={isCurrent(href, path) ? 'page' : undefined}>
                  {label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <div class="who">
          <a class="who-name" href="/console/password" title="Change your password">
            {session.user.name}
            <span class="muted" data-testid="who-role">
              {' '}
              · {describeRole(session)}
            </span>
          </a>
          <button type="button" class="button secondary small" onClick={signOut} disabled={signingOut}>
            Sign out
          </button>
        </div>
      </header>
      <main id="main" ref={main} tabIndex={-1}>
        {children}
      </main>
    </div>
  )
}

/** The page's h1, also used as the document title. */
export function PageHeader({ title, children }: { title: string; children?: ComponentChildren }) {
  useEffect(() => {
    document.title = `${title} · Tollgate`
  }, [title])
  return (
    <div class="page-header">
      <h1>{title}</h1>
      {children && <div class="page-actions">{children}</div>}
    </div>
  )
}
