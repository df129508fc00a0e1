import { useState } from 'preact/hooks'
import { can, roleNames } from '../access.ts'
import { callApi, postJson, queryString } from '../api.ts'
import { formatDate } from '../format.ts'
import type { Role, SessionInfo, User } from '../types.ts'
import { useResource } from '../use-resource.ts'
import { AccountSelect } from './account-select.tsx'
import { ConfirmDialog } from './confirm-dialog.tsx'
import { CreateForm } from './create-form.tsx'
import { SelectField, TextField } from './fields.tsx'
import { SecretReveal } from './secret-reveal.tsx'
import { Empty, Resolved, TableScroll } from './states.tsx'

function DeleteLogin({ user, onDeleted }: { user: User; onDeleted: () => void }) {
  const [asking, setAsking] = useState(false)
  return (
    <>
      <button type="button" class="button danger small" onClick={() => setAsking(true)} aria-label={`Delete login ${user.name}`}>
        Delete
      </button>
      {asking && (
        <ConfirmDialog
          title={`Delete the login ${user.name}?`}
          confirmLabel="Delete login"
          onClose={() => setAsking(false)}
          onConfirm={async () => {
            await callApi('DELETE', `/users/${user.id}`)
            onDeleted()
          }}
        >
          <p>{user.name} is signed out everywhere and can no longer sign in. Keys and balances are not affected.</p>
        </ConfirmDialog>
      )}
    </>
  )
}

function ResetPassword({ user, onReset }: { user: User; onReset: (password: string | undefined) => void }) {
  const [asking, setAsking] = useState(false)
  const [password, setPassword] = useState('')
  return (
    <>
      <button
        type="button"
        class="button secondary small"
        onClick={() => setAsking(true)}
        aria-label={`Reset the password of ${user.name}`}
      >
        Reset password
      </button>
      {asking && (
        <ConfirmDialog
          title={`Reset the password of ${user.name}?`}
          confirmLabel="Reset password"
          onClose={() => {
            setAsking(false)
            setPassword('')
          }}
          onConfirm={async () =>
            onReset((await postJson<{ password?: string }>(`/users/${user.id}/password`, { password: password || undefined })).password)
          }
        >
          <p>{user.name} is signed out everywhere and must sign in with the new password.</p>
          <TextField
            label="New password"
            type="password"
            value={password}
            onValue={setPassword}
            autoComplete="new-password"
            hint="Leave empty to generate a strong one (shown once). At least 12 characters."
          />
        </ConfirmDialog>
      )}
    </>
  )
}

function UnlockLogin({ user, onUnlocked }: { user: User; onUnlocked: () => void }) {
  const [busy, setBusy] = useState(false)
  const unlock = async () => {
    setBusy(true)
    try {
      await postJson(`/users/${user.id}/unlock`)
      onUnlocked()
    } finally {
      setBusy(false)
    }
  }
  return (
    <button
      type="button"
      class="button secondary small"
      onClick={unlock}
      disabled={busy}
      aria-label={`Unlock sign-in for ${user.name}`}
      title="Forget this login's failed sign-ins, so a throttled user may sign in at once"
    >
      Unlock sign-in
    </button>
  )
}

const roleHints: Record<Role, string> = {
  admin: 'everything, on every account',
  'account-admin': "its account's keys, logins and spend",
  viewer: "read only: its account's keys (never a secret), usage and spend",
}

/** The roles the form offers, weakest first: the first one, the least privilege, is what a hurried Enter creates. */
function offeredRoles(session: SessionInfo, forAccount: boolean): Role[] {
  return [...session.user.grantable_roles].reverse().filter((role) => !(forAccount && role === 'admin'))
}

/**
 * Console logins (all, or one account's) with a form for a new one; a generated password is shown once. An account
 * admin sees and makes its own account's logins only, and the form offers only the roles its user may give.
 */
export function LoginList({ account, session }: { account?: { id: number; name: string }; session: SessionInfo }) {
  const selfId = session.user.id
  const writes = can(session, 'users:write')
  const roles = offeredRoles(session, account !== undefined)
  const users = useResource<User[]>(`/users${queryString({ account_id: account?.id })}`)
  const [name, setName] = useState('')
  const [role, setRole] = useState<Role>(roles[0] ?? 'viewer')
  const [accountId, setAccountId] = useState(account ? String(account.id) : '')
  const [password, setPassword] = useState('')
  const [created, setCreated] = useState<{ name: string; password?: string }>()
  const [notice, setNotice] = useState<{ name: string; text: string; password?: string }>()
  const create = async () => {
    const result = await postJson<{ user: User; password?: string }>('/users', {
      name: name.trim(),
      role,
      account_id: role !== 'admin' ? Number(accountId) || undefined : undefined,
      password: password || undefined,
    })
    setCreated({ name: result.user.name, password: result.password })
    setName('')
    setPassword('')
    users.reload()
  }
  return (
    <>
      <Resolved resource={users} label="Loading logins…">
        {(list) =>
          list.length === 0 ? (
            <Empty>
              <p>No logins yet.</p>
            </Empty>
          ) : (
            <TableScroll label="Logins">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Name</th>
                    <th scope="col">Role</th>
                    {!account && <th scope="col">Account</th>}
                    <th scope="col">Created</th>
                    <th scope="col">
                      <span class="visually-hidden">Actions</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {list.map((user) => (
                    <tr key={user.id}>
                      <td>{user.name}</td>
                      <td>{roleNames[user.role]}</td>
                      {!account && <td>{user.account ?? '—'}</td>}
                      <td>{formatDate(user.created_at)}</td>
                      <td class="row-actions">
                        {writes && user.id !== selfId && (
                          <>
                            <ResetPassword
                              user={user}
                              onReset={(password) =>
                                setNotice({
                                  name: user.name,
                                  text: `Password of ${user.name} reset; they are signed out everywhere.`,
                                  password,
                                })
                              }
                            />
                            <UnlockLogin
                              user={user}
                              onUnlocked={() =>
                                setNotice({
                                  name: user.name,
                                  text: `${user.name} may sign in again at once: their failed sign-ins are forgotten.`,
                                })
                              }
                            />
                            <DeleteLogin user={user} onDeleted={users.reload} />
                          </>
                        )}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableScroll>
          )
        }
      </Resolved>
      {notice &&
        (notice.password ? (
          <SecretReveal label={`New password for ${notice.name}`} secret={notice.password} testId="reset-login-password" />
        ) : (
          <p class="notice" role="status" data-testid="login-notice">
            {notice.text}
          </p>
        ))}
      {created &&
        (created.password ? (
          <SecretReveal label={`Password for ${created.name}`} secret={created.password} testId="new-login-password" />
        ) : (
          <p class="notice" role="status">
            Login {created.name} created with the password you chose.
          </p>
        ))}
      {writes && (
        <CreateForm title={account ? `New login for ${account.name}` : 'New login'} submitLabel="Create login" onSubmit={create}>
          <TextField label="Username" value={name} onValue={setName} required maxLength={64} autoComplete="off" />
          <SelectField
            label="Role"
            value={role}
            onValue={(value) => setRole(value as Role)}
            hint={`${roleNames[role]}: ${roleHints[role]}.`}
          >
            {roles.map((each) => (
              <option key={each} value={each}>
                {roleNames[each]}
              </option>
            ))}
          </SelectField>
          {!account && role !== 'admin' && <AccountSelect value={accountId} onValue={setAccountId} empty="Choose an account…" />}
          <TextField
            label="Password"
            type="password"
            value={password}
            onValue={setPassword}
            autoComplete="new-password"
            hint="Leave empty to generate a strong one (shown once). At least 12 characters."
          />
        </CreateForm>
      )}
    </>
  )
}
