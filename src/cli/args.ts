/** `--flag value`, `--flag=value` and bare `--switch`; everything else is a positional argument. */
export interface ParsedArgs {
  positional: string[]
  flags: Map<string, string | true>
}

const switches = new Set(['json', 'help', 'password-stdin', 'admin'])

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
