import { useState } from 'preact/hooks'
import { queryString } from '../api.ts'
import { formatTime } from '../format.ts'
import type { Delivery } from '../types.ts'
import { useResource } from '../use-resource.ts'
import { Checkbox } from './fields.tsx'
import { Empty, NumberHeading, Resolved, StatusBadge, TableScroll } from './states.tsx'

const when = (time: string | null) => (time ? formatTime(time).replace(' UTC', '') : '—')

/** A webhook's last deliveries: what was sent, how often it was tried, and why the last attempt failed. */
export function WebhookDeliveries({ webhookId }: { webhookId: string }) {
  const [failedOnly, setFailedOnly] = useState(false)
  const deliveries = useResource<Delivery[]>(
    `/webhooks/${encodeURIComponent(webhookId)}/deliveries${queryString({ status: failedOnly ? 'failed' : undefined })}`,
  )
  return (
    <section class="deliveries" aria-label="Deliveries">
      <div class="filters">
        <Checkbox label="Only deliveries given up" checked={failedOnly} onChecked={setFailedOnly} />
        <button type="button" class="button secondary small" onClick={deliveries.reload}>
          Refresh
        </button>
      </div>
      <Resolved resource={deliveries} label="Loading deliveries…">
        {(list) =>
          list.length === 0 ? (
            <Empty>
              <p>No deliveries{failedOnly ? ' given up' : ' yet'}.</p>
            </Empty>
          ) : (
            <TableScroll label="Deliveries">
              <table class="stack" data-testid="deliveries-table">
                <thead>
                  <tr>
                    <th scope="col">Event</th>
                    <th scope="col">Status</th>
                    <NumberHeading>Attempts</NumberHeading>
                    <th scope="col">Made (UTC)</th>
                    <th scope="col">Last attempt (UTC)</th>
                    <th scope="col">Next attempt (UTC)</th>
                    <th scope="col">Last answer</th>
                  </tr>
                </thead>
                <tbody>
                  {list.map((delivery) => (
                    <tr key={delivery.id} data-delivery-id={delivery.id}>
                      <td data-label="Event">
                        <code>{delivery.event}</code>
                      </td>
                      <td data-label="Status">
                        <StatusBadge status={delivery.status} />
                      </td>
                      <td class="number" data-label="Attempts">
                        {delivery.attempts}
                      </td>
                      <td class="nowrap" data-label="Made">
                        {when(delivery.created_at)}
                      </td>
                      <td class="nowrap" data-label="Last attempt">
                        {when(delivery.last_attempt_at)}
                      </td>
                      <td class="nowrap" data-label="Next attempt">
                        {when(delivery.next_attempt_at)}
                      </td>
                      <td data-label="Last answer">
                        {delivery.last_error ?? (delivery.last_status === null ? '—' : `HTTP ${delivery.last_status}`)}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableScroll>
          )
        }
      </Resolved>
    </section>
  )
}
