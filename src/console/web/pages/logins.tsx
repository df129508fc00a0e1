import { LoginList } from '../components/login-list.tsx'
import { PageHeader } from '../layout.tsx'
import type { PageProps } from '../routes.tsx'
import type { Account } from '../types.ts'
import { useResource } from '../use-resource.ts'

export function Logins({ session }: PageProps) {
  const accounts = useResource<Account[]>('/accounts')
  return (
    <>
      <PageHeader title="Logins" />
      <LoginList accounts={accounts.data} selfId={session.user.id} />
    </>
  )
}
