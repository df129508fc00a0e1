import { formatUsd } from '../../core/money.ts'
import type { AccountRecord, AdminTokenRecord, BudgetRecord, KeyRecord, ProjectRecord, UserRecord } from '../records.ts'
import type { TaskRecord } from '../tasks/records.ts'
import type { WebhookRecord } from '../alerts/records.ts'
import type { AuditFields, AuditObjectType } from './records.ts'

/**
 * How each kind of object appears in the audit log: its id, the account it belongs to, and the fields a row shows.
 * Only what a person changes is listed — never a secret, a password hash, a key's hash or its shown prefix (part of
 * the secret), nor what moves by itself (a key's spend, its last use).
 */
export interface AuditObject<Row> {
  type: AuditObjectType
  id(row: Row): string
  accountId(row: Row): number | null
  fields(row: Row): AuditFields
}

const isoTime = (time: number | null) => (time === null ? null : new Date(time).toISOString())
const usd = (amount: number | null) => (amount === null ? null : formatUsd(amount))

export const accountObject: AuditObject<AccountRecord> = {
  type: 'account',
  id: (account) => String(account.id),
  accountId: (account) => account.id,
  fields: (account) => ({ name: account.name, balance_usd: formatUsd(account.balance) }),
}

export const keyObject: AuditObject<KeyRecord> = {
  type: 'key',
  id: (key) => key.id,
  accountId: (key) => key.accountId,
  fields: (key) => ({
    account_id: key.accountId,
    name: key.name,
    models: key.models,
    rpm: key.rpm,
    tpm: key.tpm,
    concurrency: key.concurrency,
    budget_usd: usd(key.budget),
    expires_at: isoTime(key.expiresAt),
    revoked_at: isoTime(key.revokedAt),
    allowed_ips: key.allowedIps,
    // Only once a key is in a project: rows of keys in none read as they always did.
    ...(key.projectId != null && { project_id: key.projectId }),
  }),
}

export const projectObject: AuditObject<ProjectRecord> = {
  type: 'project',
  id: (project) => String(project.id),
  accountId: (project) => project.accountId,
  fields: (project) => ({
    name: project.name,
    models: project.models,
    rpm: project.rpm,
    tpm: project.tpm,
    concurrency: project.concurrency,
    // Only once a project has rules: rows of projects without read as they always did.
    ...(project.allowedIps !== null && { allowed_ips: project.allowedIps }),
  }),
}

export const budgetObject: AuditObject<BudgetRecord> = {
  type: 'budget',
  id: (budget) => String(budget.id),
  accountId: (budget) => budget.accountId,
  fields: (budget) => ({
    scope: budget.scope,
    project_id: budget.projectId,
    key_id: budget.keyId,
    amount_usd: formatUsd(budget.amount),
    period: budget.period,
    time_zone: budget.timeZone,
  }),
}

export const userObject: AuditObject<UserRecord> = {
  type: 'user',
  id: (user) => String(user.id),
  accountId: (user) => user.accountId,
  // Whether it has a password at all (a single sign-on login has none), never what it is.
  fields: (user) => ({ name: user.name, role: user.role, account_id: user.accountId, password: user.passwordHash === '' ? 'none' : 'set' }),
}

export const adminTokenObject: AuditObject<AdminTokenRecord> = {
  type: 'admin-token',
  id: (token) => token.id,
  accountId: () => null,
  fields: (token) => ({ name: token.name, scope: token.scope, revoked_at: isoTime(token.revokedAt) }),
}

export const taskObject: AuditObject<TaskRecord> = {
  type: 'task',
  id: (task) => task.id,
  accountId: (task) => task.accountId,
  fields: (task) => ({ kind: task.kind, status: task.status, key_id: task.keyId }),
}

/** A webhook as the log shows it: where alerts go and which, never its signing secret. */
export const webhookObject: AuditObject<WebhookRecord> = {
  type: 'webhook',
  id: (webhook) => webhook.id,
  accountId: (webhook) => webhook.accountId,
  fields: (webhook) => ({
    url: webhook.url,
    events: webhook.events,
    balance_below_usd: usd(webhook.balanceBelow),
    expiry_days: webhook.expiryDays,
    budget_percents: webhook.budgetPercents.map(String),
  }),
}
