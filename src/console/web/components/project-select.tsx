import { can } from '../access.ts'
import type { Project, SessionInfo } from '../types.ts'
import { useResource } from '../use-resource.ts'
import { SelectField } from './fields.tsx'

/**
 * The project a new key joins, among its account's (an admin's choice of account, or the login's own); shown only
 * where the account has projects and the login may read them.
 */
export function ProjectSelect({
  session,
  accountId,
  value,
  onValue,
}: {
  session: SessionInfo
  accountId: string
  value: string
  onValue: (value: string) => void
}) {
  const admin = session.user.role === 'admin'
  const path = !can(session, 'budgets:read')
    ? null
    : admin
      ? accountId
        ? `/projects?account_id=${encodeURIComponent(accountId)}`
        : null
      : '/projects'
  const projects = useResource<Project[]>(path)
  if (!projects.data?.length) return null
  return (
    <SelectField label="Project" value={value} onValue={onValue} hint="A key in a project shares its models, limits and budgets.">
      <option value="">No project</option>
      {projects.data.map((project) => (
        <option key={project.id} value={String(project.id)}>
          {project.name}
        </option>
      ))}
    </SelectField>
  )
}
