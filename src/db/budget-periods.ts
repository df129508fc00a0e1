import type { CurrentPeriod } from '../core/budget-period/index.ts'
import { periodNow, periodOfText } from '../domain/budgets/periods.ts'
import type { LedgerTotals } from './aggregate-ledger-writes.ts'

/** A budgets row as a reservation reads it (either dialect). */
export interface BudgetRow {
  amount: number
  period: string
  time_zone: string
}

export const periodOf = periodOfText

/** The period a reservation at `at` counts against; a fixed window needs its latest start on record (`windowStart`). */
export function periodAt(budget: BudgetRow, at: number, windowStart: number | undefined): CurrentPeriod {
  return periodNow({ period: budget.period, timeZone: budget.time_zone }, at, windowStart)
}

/** One budget's part of a reservation: the period it counts in, and how much is left of it there. */
export interface BudgetRoom {
  budgetId: number
  start: number
  resetsAt: number | undefined
  room: number
}

/** The periods' reference string and when the first of them ends (the lease's validity), for a reservation's answer. */
export function summarizeRooms(rooms: readonly BudgetRoom[]): { periods: string; validUntil: number } {
  let validUntil = Infinity
  for (const room of rooms) if (room.resetsAt !== undefined && room.resetsAt < validUntil) validUntil = room.resetsAt
  return { periods: rooms.map((room) => `${room.budgetId}:${room.start}`).join(','), validUntil }
}

/** Per budget period (`budget:start`), sorted: what a batch adds to `spent` and takes from `reserved`. */
export function periodChanges(
  totals: LedgerTotals,
  released: Map<string, number>,
): { budgetId: number; start: number; spent: number; freed: number }[] {
  const refs = [...new Set([...totals.periodSpent.keys(), ...released.keys()])]
  return refs
    .map((ref) => {
      const [budgetId, start] = ref.split(':').map(Number) as [number, number]
      return { budgetId, start, spent: totals.periodSpent.get(ref) ?? 0, freed: released.get(ref) ?? 0 }
    })
    .sort((a, b) => a.budgetId - b.budgetId || a.start - b.start) // the order every writer takes them in
}

/**
 * The most a lease may take of a scheduled budget's room. Balances are large and leases reserve ahead for many
 * requests; a budget is small and shared by keys on many instances, and room one instance's lease reserved ahead can
 * sit idle there while another instance's request is refused (an eighth of the room ahead still stranded one request
 * in six runs of 200 requests over two instances against a budget of 50). So a lease reserves ahead only while the
 * budget has room for many more requests (`aheadFrom` times this one's need), and then no more than an eighth of it;
 * below that every request reserves exactly its need, in the database, and every unit of a budget can be spent
 * wherever it is asked for. The cost — one reservation a request — is paid only near a budget's end.
 */
const aheadFrom = 64

export function budgetGrant(room: number, need: number): number {
  return room >= need * aheadFrom ? Math.max(need, Math.floor(room / 8)) : need
}
