import type { Migration } from '../migrate.ts'
// Embedded at build time, like the SQLite migrations.
import init from '../../../drizzle/postgres/0000_init.sql' with { type: 'text' }
import consoleTables from '../../../drizzle/postgres/0001_console.sql' with { type: 'text' }
import keyBudgetHolds from '../../../drizzle/postgres/0002_key_budget_holds.sql' with { type: 'text' }
import dropAccountModelIndex from '../../../drizzle/postgres/0003_drop_account_model_index.sql' with { type: 'text' }
import instances from '../../../drizzle/postgres/0004_instances.sql' with { type: 'text' }
import tasks from '../../../drizzle/postgres/0005_tasks.sql' with { type: 'text' }
import adminTokens from '../../../drizzle/postgres/0006_admin_tokens.sql' with { type: 'text' }
import usageDaily from '../../../drizzle/postgres/0007_usage_daily.sql' with { type: 'text' }
import singleSignOn from '../../../drizzle/postgres/0008_single_sign_on.sql' with { type: 'text' }
import roles from '../../../drizzle/postgres/0009_roles.sql' with { type: 'text' }
import ledgerIdempotence from '../../../drizzle/postgres/0010_ledger_idempotence.sql' with { type: 'text' }
import usageOperation from '../../../drizzle/postgres/0011_usage_operation.sql' with { type: 'text' }
import auditLog from '../../../drizzle/postgres/0012_audit_log.sql' with { type: 'text' }
import budgets from '../../../drizzle/postgres/0013_budgets.sql' with { type: 'text' }
import alerts from '../../../drizzle/postgres/0014_alerts.sql' with { type: 'text' }
import projectAllowedIps from '../../../drizzle/postgres/0015_project_allowed_ips.sql' with { type: 'text' }

/** Add one line per file in drizzle/postgres. */
export const postgresMigrations: Migration[] = [
  { name: '0000_init', sql: init },
  { name: '0001_console', sql: consoleTables },
  { name: '0002_key_budget_holds', sql: keyBudgetHolds },
  { name: '0003_drop_account_model_index', sql: dropAccountModelIndex },
  { name: '0004_instances', sql: instances },
  { name: '0005_tasks', sql: tasks },
  { name: '0006_admin_tokens', sql: adminTokens },
  { name: '0007_usage_daily', sql: usageDaily },
  { name: '0008_single_sign_on', sql: singleSignOn },
  { name: '0009_roles', sql: roles },
  { name: '0010_ledger_idempotence', sql: ledgerIdempotence },
  { name: '0011_usage_operation', sql: usageOperation },
  { name: '0012_audit_log', sql: auditLog },
  { name: '0013_budgets', sql: budgets },
  { name: '0014_alerts', sql: alerts },
  { name: '0015_project_allowed_ips', sql: projectAllowedIps },
]
