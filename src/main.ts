#!/usr/bin/env bun
import { runAccountCommand } from './cli/accounts.ts'
import { flagString, parseArgs, UsageError } from './cli/args.ts'
import { runKeyCommand } from './cli/keys.ts'
import { runServe } from './cli/serve.ts'
import { runStatusCommand } from './cli/status.ts'
import { runUsageCommand } from './cli/usage.ts'
import { runUserCommand } from './cli/users.ts'
import { runTaskCommand } from './cli/tasks.ts'
import { ConfigError, loadConfig } from './config/load.ts'
import { openStore } from './db/open.ts'
import { DatabaseInUseError } from './db/sqlite/serve-lock.ts'
import { DomainError } from './domain/errors.ts'

const help = `tollgate — an LLM API gateway in one executable

usage: tollgate COMMAND [--config FILE] [--json]

  serve                                         start the gateway (PORT / HOST override the config)
  migrate                                       create or update the database tables
  account create NAME [--balance USD]           open an account
  account credit NAME USD [--note TEXT]         add money (a negative amount removes it)
  account show NAME | account list
  key create --account NAME [--name LABEL] [--models id1,id2]
             [--rpm N] [--tpm N] [--concurrency N] [--budget USD] [--expires ISO-8601]
  key list [--account NAME]
  key revoke ID
  usage [--account NAME] [--key ID]             requests, tokens and spend
  task list [--account NAME] [--limit N] | task show ID | task cancel ID
                                                batches of every protocol: status, counts, spend
  status [--url URL]                            a running gateway's routes: circuit state, recent failures
  user create NAME (--admin | --account ACCOUNT) [--password-stdin]
                                                a console login (a strong password is generated and shown once)
  user list | user delete NAME | user password NAME [--password-stdin]

--config FILE defaults to $TOLLGATE_CONFIG, then ./tollgate.yaml, then built-in defaults
(SQLite in ./data, the mock provider). Money is printed as exact decimal dollars.`

async function main(argv: string[]): Promise<number> {
  const args = parseArgs(argv)
  const json = args.flags.has('json')
  const command = args.positional[0]
  if (!command || command === 'help' || args.flags.has('help')) {
    console.log(help)
    return command ? 0 : 1
  }
  const config = loadConfig({ path: flagString(args, 'config') })
  if (command === 'serve') {
    await runServe(config)
    return -1 // keep running
  }
  if (command === 'status') {
    await runStatusCommand(config, args, json)
    return 0
  }
  const store = openStore(config.database)
  try {
    await store.migrate()
    switch (command) {
      case 'migrate':
        console.log(json ? JSON.stringify({ migrated: true }) : 'database is up to date')
        break
      case 'account':
        await runAccountCommand(store, args, json)
        break
      case 'key':
        await runKeyCommand(store, config, args, json)
        break
      case 'usage':
        await runUsageCommand(store, args, json)
        break
      case 'task':
        await runTaskCommand(store, args, json)
        break
      case 'user':
        await runUserCommand(store, args, json)
        break
      default:
        throw new UsageError(`unknown command "${command}"\n\n${help}`)
    }
    return 0
  } finally {
    await store.close()
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exit(code)
  },
  (error: unknown) => {
    const known = error instanceof UsageError || error instanceof ConfigError || error instanceof DomainError || error instanceof DatabaseInUseError
    console.error(known ? `tollgate: ${(error as Error).message}` : error)
    process.exit(error instanceof DomainError && error.kind === 'not_found' ? 3 : 2)
  },
)
