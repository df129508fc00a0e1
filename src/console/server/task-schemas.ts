import { t } from 'elysia'
import { nullable, time, usd, whole } from './schema-parts.ts'

/** The console API's answers about tasks (batches submitted through any API): one task, a page of them, a page of its items. */

const taskCounts = t.Object({
  total: whole(),
  pending: whole(),
  succeeded: whole(),
  failed: whole(),
  canceled: whole(),
  expired: whole(),
})

export const task = t.Object({
  id: t.String(),
  kind: t.Union([t.Literal('openai'), t.Literal('anthropic'), t.Literal('gemini')], { description: 'The API it was submitted through' }),
  status: t.String({ description: 'queued, in_progress, cancelling, completed, failed, cancelled or expired' }),
  account_id: whole(),
  account: t.Optional(nullable(t.String())),
  key_id: t.String(),
  endpoint: t.String(),
  model: nullable(t.String()),
  display_name: nullable(t.String()),
  counts: taskCounts,
  spent_usd: usd('What its items cost so far'),
  created_at: time('When it was submitted'),
  started_at: nullable(t.String({ format: 'date-time' })),
  finished_at: nullable(t.String({ format: 'date-time' })),
  expires_at: time('When unfinished items end expired'),
})

export const taskPage = t.Object({
  tasks: t.Array(task),
  next: nullable(t.String({ description: 'Pass as `before` for the next page; null on the last one' })),
})

const taskItem = t.Object({
  position: whole({ description: 'Its place in the input, from 0' }),
  custom_id: t.String(),
  status: t.Union([
    t.Literal('pending'),
    t.Literal('running'),
    t.Literal('succeeded'),
    t.Literal('errored'),
    t.Literal('canceled'),
    t.Literal('expired'),
  ]),
  status_code: nullable(whole()),
  error: nullable(t.String({ description: 'Why it failed, for an errored item' })),
  cost_usd: usd('What it cost'),
  finished_at: nullable(t.String({ format: 'date-time' })),
})

export const itemPage = t.Object({
  items: t.Array(taskItem),
  next: nullable(t.String({ description: 'Pass as `after` for the next page; null on the last one' })),
})
