import type { Database, SQLQueryBindings } from 'bun:sqlite'
import { Pacer } from '../../core/pace.ts'
import type { NewItem } from '../../domain/tasks/records.ts'

/**
 * The task tables' bulk work on SQLite, in slices: bun:sqlite is synchronous, so one transaction over a batch's
 * 50,000 items held every tenant (20,000 items inserted: 150 ms; ended or deleted likewise). Each slice is a short
 * transaction of its own; the loop yields to the event loop between slices once it has held it for a few ms.
 */
const rowsPerSlice = 200
/** A slice of items inserted also stops at this much body text (items may be large) or this long. */
const bytesPerSlice = 1024 * 1024
const slicedMs = 3

/** Run `slice` (one short transaction: how many rows it did) until it does none, pacing between slices. */
async function inSlices(slice: () => number): Promise<number> {
  const pacer = new Pacer()
  let total = 0
  while (true) {
    const done = slice()
    total += done
    if (done === 0) return total
    await pacer.pace()
  }
}

export function createTaskSlices(client: Database) {
  const run = (sql: string, ...params: SQLQueryBindings[]) => client.query(sql).run(...params).changes
  const insertSlice = client.transaction((taskId: string, items: NewItem[], from: number) => {
    const insertItem = client.query(`INSERT INTO task_items (id, task_id, seq, custom_id, body, status) VALUES (?, ?, ?, ?, ?, 'pending')`)
    const started = performance.now()
    let index = from
    let bytes = 0
    while (index < items.length && bytes < bytesPerSlice) {
      const item = items[index++]!
      insertItem.run(item.id, taskId, item.seq, item.customId, item.body)
      bytes += item.body.length
      // The clock is read every 50 rows: a slice ends once it has run its few ms.
      if ((index - from) % 50 === 0 && performance.now() - started >= slicedMs) break
    }
    return index - from
  })
  /** Pending items of a task end without running (`canceled` or `expired`), counted on the task, a slice at a time. */
  const endPendingSlice = client.transaction((taskId: string, status: 'canceled' | 'expired', at: number) => {
    const ended = run(
      `UPDATE task_items SET status = ?, finished_at = ? WHERE rowid IN
      (SELECT rowid FROM task_items WHERE status = 'pending' AND task_id = ? LIMIT ${rowsPerSlice})`,
      status,
      at,
      taskId,
    )
    if (ended > 0) run(`UPDATE tasks SET ${status} = ${status} + ? WHERE id = ?`, ended, taskId)
    return ended
  })
  const deleteItemsSlice = (taskId: string) =>
    run(`DELETE FROM task_items WHERE rowid IN (SELECT rowid FROM task_items WHERE task_id = ? LIMIT ${rowsPerSlice})`, taskId)
  // Parts are up to a MB or more each: a few at a time.
  const deletePartsSlice = (fileId: string) =>
    run('DELETE FROM task_file_parts WHERE rowid IN (SELECT rowid FROM task_file_parts WHERE file_id = ? LIMIT 4)', fileId)

  return {
    /** Every item, in slices; none is seen until its task's row is written (claims and reads go through the task). */
    async insertItems(taskId: string, items: NewItem[]): Promise<void> {
      let from = 0
      await inSlices(() => {
        const done = insertSlice(taskId, items, from)
        from += done
        return done
      })
    },
    endPending: (taskId: string, status: 'canceled' | 'expired', at: number) => inSlices(() => endPendingSlice(taskId, status, at)),
    deleteItems: (taskId: string) => inSlices(() => deleteItemsSlice(taskId)),
    deleteParts: (fileId: string) => inSlices(() => deletePartsSlice(fileId)),
  }
}
