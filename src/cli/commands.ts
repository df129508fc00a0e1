import { type CommandSpec, type ParsedArgs, UsageError } from './args.ts'
import { didYouMean } from './suggest.ts'

const spec = (words: string, operands: string, values: string, switches: string, usage: string, summary: string): CommandSpec => ({
  words: words.split(' '),
  operands: operands ? operands.split(' ') : [],
  values: values ? values.split(' ') : [],
  switches: switches ? switches.split(' ') : [],
  usage,
  summary,
})

/** Every command, its arguments and its flags: the parser checks against this table and the help is printed from it. */
export const commands: CommandSpec[] = [
  spec('serve', '', '', '', 'serve', 'start the gateway (PORT / HOST override the config); creates the database if needed'),
  spec('migrate', '', '', '', 'migrate', 'create or update the database tables'),
  spec('backup', 'FILE', '', '', 'backup FILE', 'write a consistent copy of the SQLite database to FILE (safe while serve runs)'),
  spec(
    'db copy',
    '',
    'from to',
    'force sessions',
    'db copy --from sqlite:PATH --to postgres://… [--force] [--sessions]',
    'copy every account, key, user, ledger entry, usage row, task and audit row into PostgreSQL, same ids; compares counts and money',
  ),
  spec('reload', '', '', '', 'reload', 'ask the running serve of this config to re-read it (SIGHUP): nothing in flight is dropped'),
  spec('status', '', 'url', '', 'status [--url URL]', "a running gateway's routes: circuit state, recent failures"),
  spec('account create', 'NAME', 'balance', '', 'account create NAME [--balance USD]', 'open an account'),
  spec('account credit', 'NAME USD', 'note', '', 'account credit NAME USD [--note TEXT]', 'add money (a negative amount removes it)'),
  spec('account show', 'NAME', '', '', 'account show NAME', "one account's balance"),
  spec('account list', '', '', '', 'account list', 'every account'),
  spec(
    'key create',
    '',
    'account name models rpm tpm concurrency budget expires allowed-ips project',
    '',
    'key create --account NAME [--name LABEL] [--models id1,id2] [--rpm N] [--tpm N] [--concurrency N] [--budget USD] [--expires ISO-8601] ' +
      '[--allowed-ips 10.0.0.0/8,2001:db8::1] [--project NAME]',
    'a new API key (the secret is shown once)',
  ),
  spec('key list', '', 'account', '', 'key list [--account NAME]', 'keys, with their limits and spend'),
  spec(
    'key edit',
    'ID',
    'name models rpm tpm concurrency budget expires allowed-ips project',
    '',
    'key edit ID [--name LABEL] [--models id1,id2|all] [--rpm N|none] [--tpm N|none] [--concurrency N|none] [--budget USD|none] ' +
      '[--expires ISO-8601|none] [--allowed-ips LIST|any] [--project NAME|none]',
    "change a key's name, models, limits, budget, expiry, allowed addresses or project (counts from its next request)",
  ),
  spec(
    'project create',
    'NAME',
    'account models rpm tpm concurrency allowed-ips',
    '',
    'project create NAME --account NAME [--models id1,id2] [--rpm N] [--tpm N] [--concurrency N] [--allowed-ips 10.0.0.0/8,2001:db8::1]',
    "a group of an account's keys: a model list and address rules their own only narrow, limits shared by all of them",
  ),
  spec('project list', '', 'account', '', 'project list [--account NAME]', 'projects, with their models, shared limits and keys'),
  spec(
    'project edit',
    'ID',
    'name models rpm tpm concurrency allowed-ips',
    '',
    'project edit ID [--name NAME] [--models id1,id2|all] [--rpm N|none] [--tpm N|none] [--concurrency N|none] [--allowed-ips LIST|any]',
    'change a project (its keys follow within a second)',
  ),
  spec('project delete', 'ID', '', '', 'project delete ID', 'delete a project: its keys stay, in no project; its budgets go'),
  spec(
    'budget create',
    '',
    'account project key amount period time-zone',
    '',
    'budget create --account NAME [--project NAME | --key ID] --amount USD --period day|week|month|5h|30m|7d|total [--time-zone ZONE]',
    'an amount per period for an account, a project or a key: requests it cannot cover are refused (403)',
  ),
  spec('budget list', '', 'account', '', 'budget list [--account NAME]', 'budgets with their current period: spent, remaining, reset'),
  spec(
    'budget edit',
    'ID',
    'amount period time-zone',
    '',
    'budget edit ID [--amount USD] [--period PERIOD] [--time-zone ZONE]',
    'change a budget',
  ),
  spec('budget delete', 'ID', '', '', 'budget delete ID', 'delete a budget'),
  spec('key rotate', 'ID', '', '', 'key rotate ID', 'a new secret for the same key (shown once); the old one is refused from now on'),
  spec('key revoke', 'ID', '', '', 'key revoke ID', 'refuse a key from now on'),
  spec(
    'usage',
    '',
    'account key project by',
    '',
    'usage [--account NAME] [--key ID] [--project NAME] [--by project]',
    "requests, tokens and spend; --project: only that project's keys (needs --account); --by project: one line per project",
  ),
  spec(
    'audit',
    '',
    'actor object object-id action account since until limit',
    '',
    'audit [--actor NAME] [--object TYPE] [--object-id ID] [--action ACTION] [--account NAME] [--since ISO-8601] [--until ISO-8601] [--limit N]',
    'the audit log, newest first (50 rows unless --limit): who changed what, when, from where, before and after',
  ),
  spec(
    'task list',
    '',
    'account limit',
    '',
    'task list [--account NAME] [--limit N]',
    'batches of every protocol, newest first: status, counts, spend',
  ),
  spec('task show', 'ID', '', '', 'task show ID', 'one batch: status, counts, times, spend'),
  spec('task cancel', 'ID', '', '', 'task cancel ID', 'stop starting its items; running ones finish and are billed'),
  spec(
    'admin-token create',
    'NAME',
    'scope',
    '',
    'admin-token create NAME --scope read|full',
    'a bearer token for the admin API (/admin/api); the secret is shown once',
  ),
  spec('admin-token list', '', '', '', 'admin-token list', 'admin tokens: scope, status, last use'),
  spec('admin-token revoke', 'ID', '', '', 'admin-token revoke ID', 'refuse an admin token from now on'),
  spec(
    'webhook create',
    '',
    'account url events balance-below expiry-days budget-percents',
    '',
    'webhook create --account NAME --url URL [--events balance.below,budget.threshold,key.expiring] [--balance-below USD] [--expiry-days N] [--budget-percents 50,80,100]',
    "where an account's alerts are POSTed, signed; the signing secret is shown once",
  ),
  spec('webhook list', '', 'account', '', 'webhook list [--account NAME]', 'webhooks (never their secrets)'),
  spec('webhook delete', 'ID', '', '', 'webhook delete ID', 'stop sending alerts there (its pending deliveries are dropped)'),
  spec(
    'webhook deliveries',
    'ID',
    'status',
    '',
    'webhook deliveries ID [--status pending|delivered|failed]',
    "a webhook's last 100 deliveries: attempts, last answer",
  ),
  spec(
    'user create',
    'NAME',
    'account role',
    'admin password-stdin sso',
    'user create NAME (--role admin | --admin | --account ACCOUNT [--role account-admin|viewer]) [--password-stdin | --sso]',
    'a console login (a strong password is generated and shown once); with --account the role defaults to viewer (read only); --sso: no password, it waits for the first single sign-on as NAME',
  ),
  spec('user list', '', '', '', 'user list', 'console logins'),
  spec('user delete', 'NAME', '', '', 'user delete NAME', 'remove a login (signed out everywhere)'),
  spec(
    'user password',
    'NAME',
    '',
    'password-stdin',
    'user password NAME [--password-stdin]',
    'set a new password (signed out everywhere)',
  ),
]

export const help = `tollgate — an LLM API gateway in one executable

usage: tollgate COMMAND [ARGUMENTS] [--config FILE] [--json] [--debug]

${commands.map((command) => `  ${command.usage}\n      ${command.summary}`).join('\n')}

  --config FILE  defaults to $TOLLGATE_CONFIG, then ./tollgate.yaml, then built-in defaults (SQLite in
                 ./data/tollgate.db, the mock provider)
  --json         machine-readable output; money is an exact decimal string of dollars
  --debug        print the stack of an error
  --help         this text (after a command: that command's usage)
  --version      the version of this build

Only serve and migrate create a database; the other commands refuse to run on a missing one.`

/** The usage lines of every command that starts with `word` (`user` → user create, list, delete, password). */
export function groupHelp(word: string): string | undefined {
  const group = commands.filter((command) => command.words[0] === word)
  if (group.length === 0) return undefined
  return group.map((command) => `  tollgate ${command.usage}\n      ${command.summary}`).join('\n')
}

/** The command the arguments name, or a UsageError listing what exists there (and the nearest, for a slip). */
export function findCommand(args: ParsedArgs): CommandSpec {
  const [first, second] = args.positional
  const exact = commands.find((command) => command.words[0] === first && (command.words.length === 1 || command.words[1] === second))
  if (exact) return exact
  const group = commands.filter((command) => command.words[0] === first)
  if (group.length > 0) {
    const lines = group
      .map((command) => `       tollgate ${command.usage}`)
      .join('\n')
      .replace(/^ {7}/, 'usage: ')
    if (second === undefined) throw new UsageError(`"${first}" needs a subcommand\n${lines}`)
    const hint = didYouMean(
      second,
      group.map((command) => command.words[1]!),
      `${first} `,
    )
    throw new UsageError(`unknown command "${first} ${second}"${hint}\n${lines}`)
  }
  const hint = didYouMean(first!, new Set(commands.map((command) => command.words[0]!)))
  throw new UsageError(`unknown command "${first}"${hint}\n\`tollgate --help\` lists the commands`)
}
