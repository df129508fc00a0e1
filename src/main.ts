#!/usr/bin/env bun
import packageJson from '../package.json' with { type: 'json' }
import { runAccountCommand } from './cli/accounts.ts'
import { runAdminTokenCommand } from './cli/admin-tokens.ts'
import { runAuditCommand } from './cli/audit.ts'
import { runWebhookCommand } from './cli/webhooks.ts'
import { WebhookService } from './domain/alerts/webhook-service.ts'
import { checkArgs, flagString, parseArgs, UsageError } from './cli/args.ts'
import { findCommand, groupHelp, help } from './cli/commands.ts'
import { checkGlobalFlags, describeMigration, printFailure } from './cli/top-level.ts'
import { describeFailure } from './cli/describe-failure.ts'
import { runKeyCommand } from './cli/keys.ts'
import { runBudgetCommand, runProjectCommand } from './cli/governance.ts'
import { BudgetService } from './domain/budgets/service.ts'
import { runReloadCommand } from './cli/reload.ts'
import { runServe } from './cli/serve.ts'
import { runStatusCommand } from './cli/status.ts'
import { runUsageCommand } from './cli/usage.ts'
import { runUserCommand } from './cli/users.ts'
import { applyLaunchEnvironment } from './cli/launch-environment.ts'
import { runTaskCommand } from './cli/tasks.ts'
import { ConfigError, loadConfig } from './config/load.ts'
import { openAnnouncer } from './db/redis/shared-state.ts'
import type { Config } from './config/types.ts'
import { parseDatabaseUrl } from './core/database-url.ts'
import { CopyError, copyDatabase } from './db/copy.ts'
import { describeCopy } from './cli/db-copy.ts'
import { DatabaseOpenError, describeDatabase, openStore } from './db/open.ts'
import { BackupError, backupSqlite } from './db/sqlite/backup.ts'
import { DatabaseInUseError } from './db/sqlite/serve-lock.ts'
import { DomainError } from './domain/errors.ts'
import { type KeyChangeListener, KeyService } from './domain/key-service.ts'

/** Embedded at build time (bun build inlines the JSON), so the binary knows its version without the repository. */
const version = packageJson.version

/** Set once the config is read, so a failure can name the setting to change. */
let loaded: Config | undefined

async function main(argv: string[]): Promise<number> {
  const args = parseArgs(argv)
  const json = args.flags.has('json')
  const command = args.positional[0]
  if (!command || command === 'help') {
    checkGlobalFlags(args)
    if (args.flags.has('version') && !command) {
      console.log(`tollgate ${version}`)
      return 0
    }
    if (args.flags.has('help') || command === 'help') {
      console.log(help)
      return 0
    }
    console.error(help)
    return 2
  }
  if (args.flags.has('help') && args.positional.length === 1 && groupHelp(command)) {
    console.log(`usage:\n${groupHelp(command)}`)
    return 0
  }
  const spec = findCommand(args)
  if (args.flags.has('help')) {
    console.log(`usage: tollgate ${spec.usage}\n  ${spec.summary}`)
    return 0
  }
  checkArgs(args, spec)
  const config = (loaded = loadConfig({ path: flagString(args, 'config') }))
  if (command === 'serve') {
    // Before anything is opened: the process may replace itself to start with what Bun reads at start (launch-environment.ts).
    const notApplied = await applyLaunchEnvironment(config.limits.upstreamConnections)
    await runServe(config, () => loadConfig({ path: flagString(args, 'config') }), notApplied)
    return -1 // keep running
  }
  if (command === 'reload') return runReloadCommand(config, json)
  if (command === 'status') {
    await runStatusCommand(config, args, json)
    return 0
  }
  if (command === 'db') {
    // Names both databases itself: the config's `database:` plays no part.
    const [from, to] = [flagString(args, 'from'), flagString(args, 'to')]
    if (!from || !to) throw new UsageError(`db copy needs both --from and --to\nusage: tollgate ${spec.usage}`)
    console.error(`tollgate: copying ${describeDatabase(from)} into ${describeDatabase(to)}`)
    try {
      const report = await copyDatabase({ from, to, force: args.flags.has('force'), sessions: args.flags.has('sessions') })
      console.log(json ? JSON.stringify(report, null, 2) : describeCopy(report))
      return 0
    } catch (error) {
      if (!(error instanceof CopyError) || !error.report) throw error
      console.log(json ? JSON.stringify(error.report, null, 2) : describeCopy(error.report))
      throw error
    }
  }
  // Say which database every command works on: the wrong folder or config is the commonest operator mistake.
  console.error(`tollgate: database ${describeDatabase(config.database)} (config: ${config.source})`)
  const store = openStore(config.database, { create: command === 'migrate' })
  try {
    const migration = await store.migrate()
    switch (command) {
      case 'migrate':
        console.log(
          json
            ? JSON.stringify({ migrated: true, ...migration, database: describeDatabase(config.database) })
            : describeMigration(migration, describeDatabase(config.database)),
        )
        break
      case 'backup': {
        const target = parseDatabaseUrl(config.database)
        if (typeof target === 'string' || target.dialect !== 'sqlite')
          throw new UsageError('backup copies a SQLite database; for PostgreSQL use pg_dump')
        const written = backupSqlite(target.path, args.positional[1]!)
        console.log(
          json ? JSON.stringify({ backup: written, database: describeDatabase(config.database) }) : `wrote a consistent copy to ${written}`,
        )
        break
      }
      case 'account':
        await runAccountCommand(store, args, json)
        break
      case 'key': {
        // Running instances apply a change as soon as they hear of it (connected first: heard right after the write);
        // without Redis, at their next poll.
        const announcer = config.redis && args.positional[1] !== 'list' ? await openAnnouncer(config.redis) : undefined
        const listeners: KeyChangeListener[] = announcer
          ? [
              async (change) => {
                if (!(await announcer.announce('keys', change.after.id))) {
                  console.error('tollgate: Redis did not answer: running instances apply the change at their next poll (within a second)')
                }
              },
            ]
          : []
        try {
          const configuredModels = () => config.models.map((model) => model.id)
          await runKeyCommand(
            store,
            new KeyService({ repository: store.keys, listeners, configuredModels, findProject: (id) => store.budgets.findProject(id) }),
            args,
            json,
          )
        } finally {
          announcer?.close()
        }
        break
      }
      case 'project':
      case 'budget': {
        // Running instances read the keys a change marks at once when told (Redis), else at their next poll.
        const announcer = config.redis && args.positional[1] !== 'list' ? await openAnnouncer(config.redis) : undefined
        const changed =
          announcer &&
          (async () => {
            if (!(await announcer.announce('budgets', null)))
              console.error('tollgate: Redis did not answer: running instances apply the change at their next poll (within a second)')
          })
        try {
          const service = new BudgetService({
            repository: store.budgets,
            keys: store.keys,
            configuredModels: () => config.models.map((model) => model.id),
            changed,
          })
          await (command === 'project' ? runProjectCommand : runBudgetCommand)(store, service, args, json)
        } finally {
          announcer?.close()
        }
        break
      }
      case 'usage':
        await runUsageCommand(store, args, json)
        break
      case 'audit':
        await runAuditCommand(store, args, json)
        break
      case 'task':
        await runTaskCommand(store, args, json)
        break
      case 'user':
        await runUserCommand(store, args, json)
        break
      case 'admin-token':
        await runAdminTokenCommand(store, args, json)
        break
      case 'webhook':
        // A running serve reads the webhooks again within 10 s (edge/alerting.ts).
        await runWebhookCommand(
          store,
          new WebhookService({ repository: store.webhooks, allowPrivate: () => config.webhooks.allowPrivateAddresses }),
          args,
          json,
        )
        break
    }
    return 0
  } finally {
    await store.close()
  }
}

const plain = [UsageError, ConfigError, DomainError, DatabaseInUseError, DatabaseOpenError, BackupError, CopyError]

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exit(code)
  },
  (error: unknown) => {
    const known = plain.some((type) => error instanceof type) ? (error as Error).message : describeFailure(error, loaded)
    printFailure(error, known, process.argv.includes('--debug'))
    const usageLike = error instanceof UsageError || error instanceof ConfigError || error instanceof DomainError
    process.exit(error instanceof DomainError && error.kind === 'not_found' ? 3 : usageLike ? 2 : 1)
  },
)
