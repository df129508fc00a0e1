import { formatUsd } from '../core/money.ts'
import { table } from './output.ts'

/** The shape of db/copy.ts's CopyReport (cli may not import db: the composition root hands it over). */
interface CopyReport {
  tables: { table: string; source: number; target: number; skipped?: boolean }[]
  sums: { sum: string; source: string; target: string }[]
  releasedHolds: number
  matches: boolean
}

/** `db copy`'s report: rows per table and money sums of both sides (nano-dollar sums shown as dollars). */
export function describeCopy(report: CopyReport): string {
  const dollars = (units: string) => (Number.isSafeInteger(Number(units)) ? `$${formatUsd(Number(units))}` : `${units} nano-USD`)
  const mark = (same: boolean) => (same ? 'ok' : 'DIFFERS')
  return [
    ...(report.releasedHolds
      ? [`released ${report.releasedHolds} hold(s) a stopped serve left in the source (that money was never spent)`]
      : []),
    table([
      ['TABLE', 'SOURCE', 'TARGET', ''],
      ...report.tables.map((row) => [
        row.table,
        String(row.source),
        String(row.target),
        row.skipped ? 'skipped (--sessions copies them)' : mark(row.source === row.target),
      ]),
    ]),
    '',
    table([
      ['SUM', 'SOURCE', 'TARGET', ''],
      ...report.sums.map((row) => [row.sum, dollars(row.source), dollars(row.target), mark(row.source === row.target)]),
    ]),
    '',
    report.matches ? 'copied: every count and sum matches' : 'NOT copied: the two sides differ (the target was left as it was)',
  ].join('\n')
}
