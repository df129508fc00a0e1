import { didYouMean } from './suggest.ts'

/** `--flag value`, `--flag=value` and bare `--switch`; everything else is a positional argument. */
export interface ParsedArgs {
  positional: string[]
  flags: Map<string, string | true>
}

/** Flags that never take a value, in any command (so `--admin alice` leaves alice positional). */
const switches = new Set(['json', 'help', 'password-stdin', 'admin', 'debug', 'version', 'force', 'sessions'])

export function parseArgs(argv: string[]): ParsedArgs {
  const positional: string[] = []
  const flags = new Map<string, string | true>()
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index]!
    if (!arg.startsWith('--')) {
      positional.push(arg)
      continue
    }
    const [name, inline] = arg.slice(2).split(/=(.*)/s, 2) as [string, string | undefined]
    if (inline !== undefined) flags.set(name, inline)
    else if (switches.has(name) || index + 1 >= argv.length || argv[index + 1]!.startsWith('--')) flags.set(name, true)
    else flags.set(name, argv[++index]!)
  }
  return { positional, flags }
}

export class UsageError extends Error {}

/** What one command accepts: its positional arguments (after the command words) and its flags. */
export interface CommandSpec {
  /** The command words: `['key', 'create']`. */
  words: string[]
  /** Placeholders of the positional arguments that follow the words, all required: `['NAME', 'USD']`. */
  operands: string[]
  /** Flags that take a value. */
  values: string[]
  /** Flags that take none. */
  switches: string[]
  /** The usage line after `tollgate `. */
  usage: string
  summary: string
}

/** Every command takes these. */
export const globalValues = ['config']
export const globalSwitches = ['json', 'debug', 'help']

/**
 * Refuse what the command would otherwise ignore: an unknown flag (`--acount acme` once printed the whole gateway's
 * totals; `--model mock-1` made an unrestricted key), a flag without its value, a value given to a switch, a missing
 * or extra positional argument (`usage acme`). The message ends with the command's usage line.
 */
export function checkArgs(args: ParsedArgs, spec: CommandSpec): void {
  const usage = `usage: tollgate ${spec.usage}`
  const values = new Set([...spec.values, ...globalValues])
  const switches = new Set([...spec.switches, ...globalSwitches])
  for (const [name, value] of args.flags) {
    if (values.has(name)) {
      if (value === true) throw new UsageError(`--${name} needs a value\n${usage}`)
    } else if (switches.has(name)) {
      if (value !== true) throw new UsageError(`--${name} takes no value (got "${value}")\n${usage}`)
    } else {
      const hint = didYouMean(name, [...values, ...switches], '--')
      throw new UsageError(`unknown option --${name} for "${spec.words.join(' ')}"${hint}\n${usage}`)
    }
  }
  const operands = args.positional.slice(spec.words.length)
  if (operands.length < spec.operands.length) throw new UsageError(`missing ${spec.operands.slice(operands.length).join(' ')}\n${usage}`)
  if (operands.length > spec.operands.length) throw new UsageError(`unexpected argument "${operands[spec.operands.length]}"\n${usage}`)
}

export function flagString(args: ParsedArgs, name: string): string | undefined {
  const value = args.flags.get(name)
  if (value === true) throw new UsageError(`--${name} needs a value`)
  return value
}

export function flagInteger(args: ParsedArgs, name: string): number | undefined {
  const value = flagString(args, name)
  if (value === undefined) return undefined
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new UsageError(`--${name} must be a whole number ≥ 1, got "${value}"`)
  return Number(value)
}
