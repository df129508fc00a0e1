import { useState } from 'preact/hooks'
import { callApi, queryString } from '../api.ts'
import { can } from '../access.ts'
import { AccountSelect } from '../components/account-select.tsx'
import { ConfirmDialog } from '../components/confirm-dialog.tsx'
import { SecretReveal } from '../components/secret-reveal.tsx'
import { Empty, Resolved, TableScroll } from '../components/states.tsx'
import { WebhookDeliveries } from '../components/webhook-deliveries.tsx'
import { WebhookForm } from '../components/webhook-form.tsx'
import { formatTime } from '../format.ts'
import { PageHeader } from '../layout.tsx'
import { navigate } from '../router.ts'
import type { PageProps } from '../routes.tsx'
import type { Webhook } from '../types.ts'
import { useResource } from '../use-resource.ts'

/** What a webhook is told of, in a cell: `balance < $10.00 · budgets 50/80/100 % · keys 7 days ahead`. */
function describeEvents(webhook: Webhook): string {
  return [
    webhook.events.includes('balance.below') && webhook.balance_below_usd !== null && `balance < $${webhook.balance_below_usd}`,
    webhook.events.includes('budget.threshold') && `budgets ${webhook.budget_percents.join('/')} %`,
    webhook.events.includes('key.expiring') && `keys ${webhook.expiry_days} days ahead`,
  ]
    .filter(Boolean)
    .join(' · ')
}

/** Webhooks: where an account's alerts go, the secret once when one is made, and each one's deliveries and failures. */
export function Webhooks({ session, search }: PageProps) {
  const admin = session.user.role === 'admin'
  const writes = can(session, 'webhooks:write')
  const account = search.get('account') ?? ''
  const webhooks = useResource<Webhook[]>(`/webhooks${queryString({ account_id: admin ? account : undefined })}`)
  const [created, setCreated] = useState<{ webhook: Webhook; secret: string }>()
  const [open, setOpen] = useState<string>()
  const [deleting, setDeleting] = useState<Webhook>()
  return (
    <>
      <PageHeader title="Webhooks" />
      <p class="hint">
        Alerts are POSTed to each webhook: the balance falling below an amount, a budget reaching a threshold (once per period), a key about
        to expire. Failed deliveries are tried again for a day.
      </p>
      {admin && (
        <div class="filters">
          <AccountSelect
            value={account}
            empty="All accounts"
            onValue={(value) => navigate(`/console/webhooks${queryString({ account: value })}`, { replace: true })}
          />
        </div>
      )}
      {created && (
        <SecretReveal label={`Signing secret of ${created.webhook.url}`} secret={created.secret} testId="webhook-secret">
          <p class="hint">Verify each delivery's Tollgate-Signature header with it. It is shown this once.</p>
        </SecretReveal>
      )}
      {writes &&
        (admin && !account ? (
          <p class="hint">Choose an account to add a webhook to it.</p>
        ) : (
          <WebhookForm
            accountId={admin ? Number(account) : undefined}
            onCreated={(made) => {
              setCreated(made)
              webhooks.reload()
            }}
          />
        ))}
      <Resolved resource={webhooks} label="Loading webhooks…">
        {(list) =>
          list.length === 0 ? (
            <Empty>
              <p>No webhooks yet.</p>
            </Empty>
          ) : (
            <TableScroll label="Webhooks">
              <table class="stack" data-testid="webhooks-table">
                <thead>
                  <tr>
                    <th scope="col">URL</th>
                    <th scope="col">Alerts</th>
                    <th scope="col">Created (UTC)</th>
                    <th scope="col">
                      <span class="visually-hidden">Actions</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {list.map((webhook) => [
                    <tr key={webhook.id} data-webhook-id={webhook.id}>
                      <td data-label="URL">
                        <code>{webhook.url}</code>
                      </td>
                      <td data-label="Alerts">{describeEvents(webhook)}</td>
                      <td class="nowrap" data-label="Created">
                        {formatTime(webhook.created_at).replace(' UTC', '')}
                      </td>
                      <td class="row-actions">
                        <button
                          type="button"
                          class="button secondary small"
                          aria-expanded={open === webhook.id}
                          onClick={() => setOpen(open === webhook.id ? undefined : webhook.id)}
                        >
                          Deliveries
                        </button>
                        {writes && (
                          <button type="button" class="button danger small" onClick={() => setDeleting(webhook)}>
                            Delete
                          </button>
                        )}
                      </td>
                    </tr>,
                    open === webhook.id && (
                      <tr key={`${webhook.id}-deliveries`}>
                        <td colSpan={4}>
                          <WebhookDeliveries webhookId={webhook.id} />
                        </td>
                      </tr>
                    ),
                  ])}
                </tbody>
              </table>
            </TableScroll>
          )
        }
      </Resolved>
      {deleting && (
        <ConfirmDialog
          title="Delete this webhook?"
          confirmLabel="Delete webhook"
          onClose={() => setDeleting(undefined)}
          onConfirm={async () => {
            await callApi('DELETE', `/webhooks/${encodeURIComponent(deleting.id)}`)
            webhooks.reload()
          }}
        >
          <p>
            Alerts stop going to <code>{deleting.url}</code>; deliveries not yet made are dropped.
          </p>
        </ConfirmDialog>
      )}
    </>
  )
}
