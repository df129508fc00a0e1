/**
 * One CSV field. Text a spreadsheet would run as a formula (a key named `=HYPERLINK(…)`: a first `=`, `+`, `-`, `@`,
 * tab or carriage return) gets a leading quote mark; numbers and money are written as they are, money as the exact
 * decimal string.
 */
function csvField(value: unknown): string {
  if (value === null || value === undefined) return ''
  if (typeof value !== 'string') return String(value)
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe
}

/**
 * A CSV file (RFC 4180, header row first) streamed a page at a time: `readPage` is given the last row of the page
 * before (undefined at first) and the file ends with a page shorter than `pageRows`; `cells` turns a row into its
 * fields, in the header's order.
 */
export function pagedCsv<Row>(
  header: readonly string[],
  pageRows: number,
  readPage: (after: Row | undefined) => Promise<Row[]>,
  cells: (row: Row) => unknown[] | Promise<unknown[]>,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder()
  let last: Row | undefined
  let started = false
  let done = false
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!started) {
        started = true
        controller.enqueue(encoder.encode(header.join(',') + '\r\n'))
        return
      }
      if (done) return controller.close()
      const rows = await readPage(last)
      if (rows.length < pageRows) done = true
      last = rows.at(-1) ?? last
      let text = ''
      for (const row of rows) text += (await cells(row)).map(csvField).join(',') + '\r\n'
      if (text) controller.enqueue(encoder.encode(text))
      if (done) controller.close()
    },
  })
}
