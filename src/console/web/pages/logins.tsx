import { LoginList } from '../components/login-list.tsx'
import { PageHeader } from '../layout.tsx'
import type { PageProps } from '../routes.tsx'

export function Logins({ session }: PageProps) {
  return (
    <>
      <PageHeader title="Logins" />
      <LoginList session={session} account={session.user.account ?? undefined} />
    </>
  )
}
