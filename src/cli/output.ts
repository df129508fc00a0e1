/** Print either JSON (for scripts) or aligned text (for people). */
export function printResult(json: boolean, value: unknown, human: () => string): void {
  console.log(json ? JSON.stringify(value, null, 2) : human())
}

export function table(rows: string[][]): string {
  if (rows.length === 0) return ''
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length)))
  return rows
    .map((row) =>
      row
        .map((cell, column) => cell.padEnd(widths[column]!))
        .join('  ')
        .trimEnd(),
    )
    .join('\n')
}

export function formatTime(ms: number | null): string {
  return ms === null ? '-' : new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z')
}
