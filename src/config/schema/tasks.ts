import { Type } from '@sinclair/typebox'
import { renamedSection } from './shapes.ts'

/** Batch work, and how long usage rows stay one by one. */
export const tasksSchema = renamedSection(
  {
    concurrency: Type.Integer({
      minimum: 1,
      default: 4,
      description: 'Batch items running at once in this instance, so batch work never starves live traffic.',
    }),
    per_account: Type.Integer({ minimum: 1, default: 2, description: 'Batch items of one account running at once.' }),
    retention_days: Type.Number({
      minimum: 0,
      default: 30,
      description: 'Days a finished batch, its results and its files are kept; then they are deleted.',
    }),
    max_file_bytes: Type.Integer({
      minimum: 1,
      default: 200 * 1024 * 1024,
      description: 'The largest file `POST /v1/files` takes (a 400 `file_too_large` beyond); uploads stream to storage.',
    }),
    window_s: Type.Integer({
      minimum: 1,
      default: 86_400,
      description: "Every batch's completion window: when it passes, running items finish and are billed, the rest end `expired`.",
    }),
    // What one account may keep: a $0 key once stored 10 × 20 MiB and opened batches without end.
    max_files_per_account: Type.Integer({
      minimum: 1,
      default: 1000,
      description: 'Uploaded files one account keeps (400 `file_quota_exceeded`; output files are not counted).',
    }),
    max_stored_bytes_per_account: Type.Integer({
      minimum: 1,
      default: 1024 ** 3,
      description: 'Bytes of uploaded files one account keeps (400 `storage_quota_exceeded`).',
    }),
    max_open_batches_per_account: Type.Integer({
      minimum: 1,
      default: 25,
      description: 'Batches of one account not yet ended, every protocol together (429 `too_many_open_batches`).',
    }),
  },
  { description: 'Batches (`/v1/batches`, Anthropic message batches, Gemini batches).' },
)

export const retentionSchema = renamedSection(
  {
    requests_days: Type.Integer({
      minimum: 0,
      default: 90,
      description:
        'Usage rows older than this many whole UTC days are folded into daily totals per key, model and status ' +
        '(kept forever); 0 keeps every row. The ledger is never pruned.',
    }),
    audit_days: Type.Integer({
      minimum: 0,
      default: 0,
      description:
        'Audit log rows older than this many days are deleted (hourly, a batch at a time); 0, the default, keeps ' +
        'them forever. Nothing else ever edits or deletes one.',
    }),
  },
  { description: 'How long the request log and the audit log keep their rows.' },
)
