import type { Migration } from '../migrate.ts'
// Embedded at build time: `with { type: 'text' }` puts the SQL into the compiled binary.
import init from '../../../drizzle/sqlite/0000_init.sql' with { type: 'text' }
import consoleTables from '../../../drizzle/sqlite/0001_console.sql' with { type: 'text' }
import keyBudgetHolds from '../../../drizzle/sqlite/0002_key_budget_holds.sql' with { type: 'text' }
import dropAccountModelIndex from '../../../drizzle/sqlite/0003_drop_account_model_index.sql' with { type: 'text' }
import tasks from '../../../drizzle/sqlite/0004_tasks.sql' with { type: 'text' }
import adminTokens from '../../../drizzle/sqlite/0005_admin_tokens.sql' with { type: 'text' }
import usageDaily from '../../../drizzle/sqlite/0006_usage_daily.sql' with { type: 'text' }
import singleSignOn from '../../../drizzle/sqlite/0007_single_sign_on.sql' with { type: 'text' }
import roles from '../../../drizzle/sqlite/0008_roles.sql' with { type: 'text' }
import ledgerBatches from '../../../drizzle/sqlite/0009_ledger_batches.sql' with { type: 'text' }
import usageOperation from '../../../drizzle/sqlite/0010_usage_operation.sql' with { type: 'text' }
import auditLog from '../../../drizzle/sqlite/0011_audit_log.sql' with { type: 'text' }
import budgets from '../../../drizzle/sqlite/0012_budgets.sql' with { type: 'text' }
import alerts from '../../../drizzle/sqlite/0013_alerts.sql' with { type: 'text' }
import usageRowid from '../../../drizzle/sqlite/0017_usage_rowid.sql' with { type: 'text' }
import projectAllowedIps from '../../../drizzle/sqlite/0018_project_allowed_ips.sql' with { type: 'text' }
import usageInbox from '../../../drizzle/sqlite/0019_usage_inbox.sql' with { type: 'text' }

/** Add one line per file in drizzle/sqlite (the registry is explicit: a binary cannot list a folder). */
export const sqliteMigrations: Migration[] = [
  { name: '0000_init', sql: init },
  { name: '0001_console', sql: consoleTables },
  { name: '0002_key_budget_holds', sql: keyBudgetHolds },
  { name: '0003_drop_account_model_index', sql: dropAccountModelIndex },
  { name: '0004_tasks', sql: tasks },
  { name: '0005_admin_tokens', sql: adminTokens },
  { name: '0006_usage_daily', sql: usageDaily },
  { name: '0007_single_sign_on', sql: singleSignOn },
  { name: '0008_roles', sql: roles },
  { name: '0009_ledger_batches', sql: ledgerBatches },
  { name: '0010_usage_operation', sql: usageOperation },
  { name: '0011_audit_log', sql: auditLog },
  { name: '0012_budgets', sql: budgets },
  { name: '0013_alerts', sql: alerts },
  { name: '0017_usage_rowid', sql: usageRowid },
  { name: '0018_project_allowed_ips', sql: projectAllowedIps },
  { name: '0019_usage_inbox', sql: usageInbox },
]
