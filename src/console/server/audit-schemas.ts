import { t, type Static } from 'elysia'
import type { auditJson } from '../../domain/audit/present.ts'
import { nullable, time, logPageQuery, timeRange } from './schema-parts.ts'

const fields = nullable(
  t.Record(t.String(), t.Union([t.String(), t.Number(), t.Boolean(), t.Null(), t.Array(t.String())]), {
    description: 'The fields that changed (all of a new or deleted object\'s), by name; never a secret: a replaced one reads "rotated"',
  }),
)

const auditRow = t.Object({
  id: t.Number(),
  at: time('When the change was made'),
  action: t.String({ description: 'What was done: `OBJECT.VERB`, e.g. key.rotate, account.credit, user.sign-in-failed, config.reload' }),
  object_type: t.String({ description: 'account, key, user, admin-token, task or config' }),
  object_id: nullable(t.String({ description: "The object's ID (a config reload: the config file)" })),
  account_id: nullable(
    t.Number({ description: "The account the object belongs to; null for the gateway's own (admin tokens, admins, config)" }),
  ),
  actor: t.Object({
    kind: t.String({ description: 'user, admin-token, cli, key, system or anonymous' }),
    id: nullable(t.String({ description: "The login's ID, the admin token's, the key's, or the CLI's OS user" })),
    name: t.String({ description: "The login's name, admin-token:NAME, cli:OSUSER, key:ID, signal:SIGHUP or anonymous" }),
    address: nullable(t.String({ description: "The client's address (after trusted_proxies); null for the CLI and the gateway itself" })),
  }),
  before: fields,
  after: fields,
})

export const auditPage = t.Object({
  entries: t.Array(auditRow),
  next: nullable(t.String({ description: 'Pass as `before` for the next page; null on the last one' })),
})

export const auditQuery = t.Object({
  account_id: t.Optional(t.String({ description: "Only this account's rows (an account admin's are always its own)" })),
  actor: t.Optional(t.String({ description: 'Only this actor: its name (alice, admin-token:deploy, cli:root) or ID' })),
  object_type: t.Optional(t.String({ description: 'Only this kind of object: account, key, user, admin-token, task, config' })),
  object_id: t.Optional(t.String({ description: 'Only this object' })),
  action: t.Optional(t.String({ description: 'Only this action, e.g. key.revoke' })),
  ...timeRange,
})

export const auditPageQuery = t.Composite([auditQuery, logPageQuery])

// The presenter and the schema agree, or this fails to compile.
const agreement: ReturnType<typeof auditJson> extends Static<typeof auditRow> ? true : false = true
void agreement
