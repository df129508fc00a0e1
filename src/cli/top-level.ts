import { globalSwitches, globalValues, type ParsedArgs, UsageError } from './args.ts'
import { didYouMean } from './suggest.ts'

/** Flags `tollgate` takes with no command: `tollgate --versoin` is named, not answered with the whole help. */
const topLevelFlags = ['version', ...globalSwitches, ...globalValues]

export function checkGlobalFlags(args: ParsedArgs): void {
  for (const name of args.flags.keys()) {
    if (topLevelFlags.includes(name)) continue
    throw new UsageError(
      `unknown option --${name}${didYouMean(name, topLevelFlags, '--')}\n\`tollgate --help\` lists the commands and options`,
    )
  }
}

/** What `migrate` did, said plainly: a new database is news, not "up to date". `where` names the database. */
export function describeMigration(migration: { applied: string[]; created: boolean }, where: string): string {
  const count = `${migration.applied.length} migration${migration.applied.length === 1 ? '' : 's'}`
  if (migration.created) return `created a new database at ${where} (${count} applied)`
  if (migration.applied.length > 0) return `updated the database at ${where}: applied ${count} (${migration.applied.join(', ')})`
  return `the database at ${where} is up to date`
}

/**
 * One line an operator can act on; with --debug, the error's name, message and call frames. Bun's own printing of
 * an error quotes the source around the throw, which in the compiled binary is a page of minified bundle.
 */
export function printFailure(error: unknown, known: string | undefined, debug: boolean): void {
  const message = (error as Error)?.message ?? String(error)
  console.error(`tollgate: ${known ?? `${message}${debug ? '' : ' (--debug prints the stack)'}`}`)
  if (debug) console.error(describeStack(error))
}

function describeStack(error: unknown, depth = 0): string {
  if (!(error instanceof Error)) return String(error)
  const frames = (error.stack ?? '')
    .split('\n')
    .filter((line) => /^\s+at /.test(line))
    .map((line) => `  ${line.trim()}`)
  const lines = [`${error.name}: ${error.message}`, ...frames]
  if (error.cause !== undefined && depth < 3) lines.push(`caused by ${describeStack(error.cause, depth + 1)}`)
  return lines.join('\n')
}
