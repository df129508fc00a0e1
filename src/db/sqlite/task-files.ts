import type { Database, SQLQueryBindings } from 'bun:sqlite'
import { type FileQuota, type FileQuotaOutcome, quotaPassed, type StoredFiles } from '../../domain/tasks/quotas.ts'
import type { FileRecord } from '../../domain/tasks/records.ts'
import type { FilePage, TaskRepository } from '../../domain/tasks/repository.ts'
import * as taskRows from '../task-rows.ts'
import type { createTaskSlices } from './task-slices.ts'

/**
 * The uploaded files of tasks on SQLite (the batch API's input and output files): their records, their parts, the
 * account's quota checked in the same transaction as the insert, and a file's removal. Tasks themselves are tasks.ts.
 */
export function createSqliteTaskFiles(
  client: Database,
  slices: ReturnType<typeof createTaskSlices>,
): Pick<TaskRepository, 'insertFilePart' | 'insertFile' | 'storedFiles' | 'findFile' | 'listFiles' | 'fileParts' | 'deleteFile'> {
  const all = <Row>(sql: string, ...params: SQLQueryBindings[]) => client.query<Row, SQLQueryBindings[]>(sql).all(...params)
  const get = <Row>(sql: string, ...params: SQLQueryBindings[]) => client.query<Row, SQLQueryBindings[]>(sql).get(...params)
  const run = (sql: string, ...params: SQLQueryBindings[]) => client.query(sql).run(...params).changes

  const storedFiles = (accountId: number): StoredFiles => {
    const row = get<taskRows.StoredFilesRow>(taskRows.taskSql.storedFiles, accountId)!
    return { files: Number(row.files), bytes: Number(row.bytes) }
  }
  const insertFile = client.transaction((file: FileRecord, quota: FileQuota | undefined): FileQuotaOutcome => {
    const passed = quota && quotaPassed(storedFiles(file.accountId), file.bytes, quota)
    if (passed) return passed
    run(taskRows.taskSql.insertFile, ...taskRows.fileValues(file))
    return 'stored'
  })

  return {
    async insertFilePart(fileId, seq, data) {
      run(taskRows.taskSql.insertFilePart, fileId, seq, data)
    },
    async insertFile(file, quota) {
      return insertFile(file, quota)
    },
    async storedFiles(accountId) {
      return storedFiles(accountId)
    },
    async findFile(id) {
      const row = get<taskRows.FileRow>(taskRows.taskSql.findFile, id)
      return row ? taskRows.fileOf(row) : undefined
    },
    async listFiles(accountId, page: FilePage) {
      const { direction, compare, parameters } = taskRows.filePageQuery(accountId, page)
      const rows = all<taskRows.FileRow>(
        `SELECT * FROM task_files WHERE account_id = ? AND (? IS NULL OR purpose = ?)
        AND (? IS NULL OR (created_at, id) ${compare} (?, ?)) ORDER BY created_at ${direction}, id ${direction} LIMIT ?`,
        ...parameters,
      )
      return rows.map(taskRows.fileOf)
    },
    async fileParts(fileId, fromSeq, limit) {
      return all<taskRows.FilePartRow>(taskRows.taskSql.fileParts, fileId, fromSeq, limit).map((row) => ({
        seq: Number(row.seq),
        data: row.data,
      }))
    },
    /** A file's record goes first, then its parts a few at a time (an upload refused has parts only). */
    async deleteFile(id) {
      const deleted = run(taskRows.taskSql.deleteFile, id) > 0
      await slices.deleteParts(id)
      return deleted
    },
  }
}
