import { count, formatDate, formatTime, usd } from '../format.ts'
import type { BalanceHistory } from '../types.ts'
import { useResource } from '../use-resource.ts'
import { Empty, NumberHeading, Resolved, TableScroll } from './states.tsx'

/** "2026-11-26 10:02–14:30": a piece of spending from its first request to its last, within one UTC day. */
function span(from: string, to: string): string {
  const [start, end] = [formatTime(from).replace(' UTC', ''), formatTime(to).replace(' UTC', '')]
  return start === end ? start : `${start}–${end.slice(11)}`
}

/**
 * Credits (with who made them and why) and spending, newest first in the order they happened, each with the
 * balance after it, every amount exactly as recorded: spending is per day, split where a credit fell within it.
 */
export function BalanceHistoryView({ accountId, version = 0 }: { accountId: number; version?: number }) {
  const resource = useResource<BalanceHistory>(`/accounts/${accountId}/history?v=${version}`)
  return (
    <Resolved resource={resource} label="Loading the history…">
      {({ history, spend_since }) =>
        history.length === 0 ? (
          <Empty>
            <p>No credits or spending yet.</p>
          </Empty>
        ) : (
          <>
            <TableScroll label="Balance history">
              <table data-testid="balance-history">
                <thead>
                  <tr>
                    <th scope="col">When (UTC)</th>
                    <th scope="col">What</th>
                    <NumberHeading>Amount</NumberHeading>
                    <NumberHeading>Balance after</NumberHeading>
                  </tr>
                </thead>
                <tbody>
                  {history.map((entry, index) =>
                    entry.kind === 'credit' ? (
                      <tr key={index}>
                        <td class="nowrap">{formatTime(entry.at).replace(' UTC', '')}</td>
                        <td>
                          {entry.note} <span class="muted">— by {entry.actor}</span>
                        </td>
                        <td class={`number ${entry.amount_usd.startsWith('-') ? 'negative' : 'positive'}`}>
                          {entry.amount_usd.startsWith('-') ? usd(entry.amount_usd) : `+${usd(entry.amount_usd)}`}
                        </td>
                        <td class="number">{usd(entry.balance_after_usd)}</td>
                      </tr>
                    ) : (
                      <tr key={index} data-testid="history-usage">
                        <td class="nowrap">{span(entry.from, entry.to)}</td>
                        <td>
                          Usage: {count(entry.succeeded)} answered{entry.refused > 0 ? `, ${count(entry.refused)} refused` : ''}
                          {entry.failed > 0 ? `, ${count(entry.failed)} failed` : ''}
                        </td>
                        <td class="number negative">
                          {/^[0.]+$/.test(entry.spent_usd) ? usd(entry.spent_usd) : `-${usd(entry.spent_usd)}`}
                        </td>
                        <td class="number">{usd(entry.balance_after_usd)}</td>
                      </tr>
                    ),
                  )}
                </tbody>
              </table>
            </TableScroll>
            <p class="hint">
              Spending is listed per day for the last 90 days (since {formatDate(spend_since)}), from its first request to its last, and
              split where a credit was made during it; credits are listed in full.
            </p>
          </>
        )
      }
    </Resolved>
  )
}
