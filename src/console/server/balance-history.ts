import { formatUsd } from '../../core/money.ts'
import { creditJson, totalsJson } from '../../domain/presenters.ts'
import type { AccountRecord, LedgerEntry, UsageDay } from '../../domain/records.ts'
import type { Services } from '../../edge/services.ts'

const dayMs = 86_400_000
const iso = (time: number) => new Date(time).toISOString()

/** Spending between two moments: when its first and last request were, and what the balance was after it. */
function usageJson(day: UsageDay, from: number, to: number, balanceAfter: number) {
  return {
    kind: 'usage' as const,
    day: iso(day.day).slice(0, 10),
    from: iso(day.firstAt ?? from),
    to: iso(day.lastAt ?? to),
    ...totalsJson(day),
    balance_after_usd: formatUsd(balanceAfter),
  }
}

/**
 * A day's spending as one piece, or split at the credits made while it went on, so that every row of the history
 * sits in time order between the credits around it: (piece, its start, its end).
 */
async function splitAtCredits(
  services: Services,
  accountId: number,
  day: UsageDay,
  credits: LedgerEntry[],
): Promise<[UsageDay, number, number][]> {
  const dayEnd = day.day + dayMs
  const inside =
    day.firstAt === undefined ? [] : credits.filter((entry) => entry.createdAt > day.firstAt! && entry.createdAt <= day.lastAt!)
  if (inside.length === 0) return [[day, day.day, dayEnd - 1]]
  const bounds = [day.day, ...inside.map((entry) => entry.createdAt).sort((a, b) => a - b), dayEnd]
  const pieces: [UsageDay, number, number][] = []
  for (let index = 0; index + 1 < bounds.length; index++) {
    const [since, until] = [bounds[index]!, bounds[index + 1]!]
    const [piece] = await services.store.usage.dailyTotals({ accountId, since, until })
    if (piece && piece.requests > 0) pieces.push([piece, since, until - 1])
  }
  return pieces
}

/**
 * Credits and spending since `since`, newest first, in the order they happened, each with the balance after it: a
 * credit's from the ledger, spending's counted back from the balance now (credits reset the count, so a row is
 * exact whatever is outside the window). Spending is listed per day, split where a credit fell within it.
 */
export async function balanceHistory(services: Services, account: AccountRecord, since: number) {
  const { accounts, usage } = services.store
  const [entries, days] = await Promise.all([accounts.ledgerEntries(account.id), usage.dailyTotals({ accountId: account.id, since })])
  const rows: { at: number; credit?: LedgerEntry; usage?: [UsageDay, number, number] }[] = entries.map((entry) => ({
    at: entry.createdAt,
    credit: entry,
  }))
  for (const day of days.filter((item) => item.requests > 0)) {
    for (const piece of await splitAtCredits(services, account.id, day, entries))
      rows.push({ at: piece[0].lastAt ?? piece[2], usage: piece })
  }
  // Newest first; at the same moment a credit is the later of the two (spending up to a credit ends before it).
  rows.sort((a, b) => b.at - a.at || Number(Boolean(b.credit)) - Number(Boolean(a.credit)))
  let balance = account.balance
  return rows.map((row) => {
    if (row.credit) {
      balance = row.credit.balanceAfter - row.credit.amount
      return creditJson(row.credit)
    }
    const [day, from, to] = row.usage!
    const item = usageJson(day, from, to, balance)
    balance += day.spent
    return item
  })
}
