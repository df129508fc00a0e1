import type { ComponentChildren } from 'preact'
import { useState } from 'preact/hooks'
import { can } from '../access.ts'
import { KeyEditForm } from '../components/key-edit.tsx'
import { RotateKeyButton } from '../components/rotate-key.tsx'
import { SecretReveal } from '../components/secret-reveal.tsx'
import { RequestLog } from '../components/request-log.tsx'
import { RevokeKeyButton } from '../components/revoke-key.tsx'
import { Empty, Resolved, StatusBadge } from '../components/states.tsx'
import { UsageSummaryView } from '../components/usage-summary.tsx'
import { count, formatTime, usd } from '../format.ts'
import { PageHeader } from '../layout.tsx'
import type { PageProps } from '../routes.tsx'
import type { Key } from '../types.ts'
import { useResource } from '../use-resource.ts'

function Item({ label, children }: { label: string; children: ComponentChildren }) {
  return (
    <div>
      <dt>{label}</dt>
      <dd>{children}</dd>
    </div>
  )
}

function orNone(value: number | null): string {
  return value === null ? 'no limit' : count(value)
}

/** One key: what it may do (models, limits, expiry), what it has cost, and its requests. */
export function KeyDetail({ session, params }: PageProps) {
  const resource = useResource<Key>(`/keys/${encodeURIComponent(params.id!)}`)
  const [editing, setEditing] = useState(false)
  const [rotated, setRotated] = useState<string>()
  // A viewer reads the key; changing it is an account admin's or an admin's.
  const writes = can(session, 'keys:write')
  return (
    <Resolved
      resource={resource}
      label="Loading the key…"
      missing={
        <>
          <PageHeader title="Key not found" />
          <Empty>
            <p>There is no key with this ID in your account.</p>
            <p>
              <a href="/console/keys">Back to your keys</a>
            </p>
          </Empty>
        </>
      }
    >
      {(key) => (
        <>
          <PageHeader title={key.name ?? 'Unnamed key'}>
            {writes && key.status !== 'revoked' && !editing && (
              <button type="button" class="button secondary" onClick={() => setEditing(true)}>
                Edit limits
              </button>
            )}
            {writes && key.status !== 'revoked' && (
              <RotateKeyButton
                apiKey={key}
                onRotated={(created) => {
                  setRotated(created.secret)
                  resource.reload()
                }}
              />
            )}
            {writes && key.status === 'active' && <RevokeKeyButton apiKey={key} onRevoked={resource.reload} />}
          </PageHeader>
          {rotated && (
            <SecretReveal label={`New secret of ${key.name ?? 'this key'}`} secret={rotated} testId="rotated-key-secret">
              <p class="hint">The previous secret no longer works.</p>
            </SecretReveal>
          )}
          {editing && (
            <KeyEditForm
              apiKey={key}
              models={session.models}
              onCancel={() => setEditing(false)}
              onSaved={() => {
                setEditing(false)
                resource.reload()
              }}
            />
          )}
          <section class="card">
            <dl class="details">
              <Item label="Key">
                <code>{key.prefix}…</code>
              </Item>
              <Item label="Status">
                <StatusBadge status={key.status} />
              </Item>
              {session.user.role === 'admin' && (
                <Item label="Account">
                  <a href={`/console/accounts/${key.account_id}`}>{key.account}</a>
                </Item>
              )}
              <Item label="Models">{key.models ? key.models.join(', ') : 'all configured models'}</Item>
              <Item label="Requests per minute">
                <span data-testid="key-rpm">{orNone(key.rpm)}</span>
              </Item>
              <Item label="Tokens per minute">{orNone(key.tpm)}</Item>
              <Item label="Concurrent requests">{orNone(key.concurrency)}</Item>
              <Item label="Budget">
                <span data-testid="key-budget">{key.budget_usd === null ? 'no limit' : usd(key.budget_usd)}</span>
              </Item>
              <Item label="Spent so far">
                <span data-testid="key-spent">{usd(key.spent_usd)}</span>
              </Item>
              <Item label="Created">{formatTime(key.created_at)}</Item>
              <Item label="Last used">{key.last_used_at ? formatTime(key.last_used_at) : 'never'}</Item>
              <Item label="Expires">{key.expires_at ? formatTime(key.expires_at) : 'never'}</Item>
              <Item label="Allowed addresses">
                <span data-testid="key-allowed-ips">{key.allowed_ips ? key.allowed_ips.join(', ') : 'any'}</span>
              </Item>
              {key.revoked_at && <Item label="Revoked">{formatTime(key.revoked_at)}</Item>}
            </dl>
          </section>
          <h2>Usage, last 30 days</h2>
          <UsageSummaryView query={{ key_id: key.id }} showKeys={false} />
          <h2>Recent requests</h2>
          <RequestLog filter={{ key_id: key.id }} showAccount={false} />
        </>
      )}
    </Resolved>
  )
}
