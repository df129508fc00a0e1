import { t } from 'elysia'
import { nullable, time, usd, whole } from './schema-parts.ts'

/** The console API's answers about spending: usage totals by day, model, key, project and account, and the request log. */

export const totalsFields = {
  requests: whole({ description: 'Every request with a valid key: succeeded + refused + failed' }),
  succeeded: whole({ description: 'Answered (status below 400)' }),
  refused: whole({
    description: 'Turned down before an answer: a 4xx other than 499 (a limit, a bad field, a model not permitted, an empty balance)',
  }),
  failed: whole({ description: 'Not completed: a 5xx (upstream or gateway), or 499 when the client left mid-answer' }),
  input_tokens: whole(),
  output_tokens: whole(),
  spent_usd: usd('Spent'),
}
export const totals = t.Object(totalsFields)
export const day = t.Object({ day: t.String({ format: 'date', description: 'A UTC day' }), ...totalsFields })
export const group = t.Object({
  id: t.String({ description: 'The model, key or account id; for models, "" is requests refused before their model was read' }),
  label: t.String({ description: "What to show: a key's name, an account's name; a model id, marked when it is not configured" }),
  ...totalsFields,
})
export const usage = t.Object({
  since: time('Start of the range'),
  until: time('End of the range (exclusive)'),
  totals,
  daily: t.Array(day, { description: 'One entry per UTC day of the range, zeros included' }),
  by_model: t.Array(group),
  by_operation: t.Array(group, { description: 'By kind of model call: chat, embeddings' }),
  by_key: t.Array(group),
  by_project: t.Array(group, { description: "By project: each project's keys as they are now" }),
  by_account: t.Optional(t.Array(group, { description: 'Only for an admin looking at every account' })),
})

export const request = t.Object({
  id: whole(),
  request_id: t.String(),
  at: time('When the request was made'),
  account_id: whole(),
  account: nullable(t.String()),
  key_id: t.String(),
  key_name: nullable(t.String()),
  key_prefix: nullable(t.String()),
  model: t.String({ description: '"" when it was refused before its model was read (a bad body, a body too large or too slow)' }),
  provider: t.String(),
  protocol: t.String(),
  operation: t.String({ description: 'The kind of model call billed: chat, embeddings' }),
  status: whole({ description: 'The HTTP status the client saw' }),
  outcome: t.Union([t.Literal('succeeded'), t.Literal('refused'), t.Literal('failed')], {
    description:
      'succeeded: answered; refused: turned down before an answer (4xx but 499); failed: 5xx, or 499 when the client left mid-answer',
  }),
  error_type: nullable(
    t.String({
      description: 'Why it was refused or failed: a code such as rate_limit_exceeded, model_not_permitted, insufficient_balance',
    }),
  ),
  input_tokens: whole(),
  cached_input_tokens: whole(),
  output_tokens: whole(),
  reasoning_tokens: whole(),
  units: whole({ description: "How much of the operation's own unit the request used (embeddings: inputs embedded; chat: 0)" }),
  cost_usd: usd('What the request cost'),
  latency_ms: t.Number(),
  stream: t.Boolean(),
  estimated: t.Boolean({ description: 'True when the token counts were estimated, not reported by the provider' }),
})

export const requestPage = t.Object({
  requests: t.Array(request),
  next: nullable(t.String({ description: 'Pass as `before` for the next page; null on the last one' })),
})
