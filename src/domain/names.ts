import { DomainError } from './errors.ts'

/** Account and user names: 1-64 letters, digits, `.`, `_`, `@` or `-`, starting with a letter or digit. */
const namePattern = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/

export function isValidName(name: string): boolean {
  return namePattern.test(name)
}

/** Throws the domain's `invalid` error unless `name` is a valid name for a `what` ("account name", "user name"). */
export function requireValidName(what: string, name: string): void {
  if (!namePattern.test(name)) throw new DomainError('invalid', `${what} "${name}" must be 1-64 letters, digits, . _ @ or -`)
}
