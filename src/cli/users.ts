import type { Store } from '../domain/repositories.ts'
import { accountNames, requireAccount } from '../domain/accounts.ts'
import { userJson } from '../domain/presenters.ts'
import { changePassword, createUser, deleteUser, listUsers, type UserWithPassword } from '../domain/users.ts'
import type { UserRole } from '../domain/records.ts'
import { belongsToAccount, userRoles } from '../domain/roles.ts'
import { changeByCli } from './actor.ts'
import { flagString, type ParsedArgs, UsageError } from './args.ts'
import { formatTime, printResult, table } from './output.ts'

const usage =
  'usage: tollgate user create NAME (--role admin | --admin | --account ACCOUNT [--role account-admin|viewer]) [--password-stdin | --sso]\n' +
  '       tollgate user list | tollgate user delete NAME | tollgate user password NAME [--password-stdin]'

/** The whole of stdin minus its final line break, so `echo secret | tollgate … --password-stdin` works. */
async function readPassword(args: ParsedArgs): Promise<string | undefined> {
  if (!args.flags.has('password-stdin')) return undefined
  const password = (await Bun.stdin.text()).replace(/\r?\n$/, '')
  if (!password) throw new UsageError('--password-stdin: nothing was read from standard input')
  return password
}

function describePassword(result: UserWithPassword, done: string): string {
  if (!result.generated) return done
  return `${done}\n\n  password: ${result.password}\n\nThis password is shown only now; store it somewhere safe.`
}

/**
 * `--admin` is `--role admin`, kept from before there were three roles. A login of an account gets the least
 * privilege unless told otherwise: a forgotten `--role` makes a viewer, never an account admin.
 */
function chooseRole(args: ParsedArgs, accountName: string | undefined): UserRole {
  const named = flagString(args, 'role')
  const admin = args.flags.has('admin')
  if (!admin && named === undefined && accountName === undefined) throw new UsageError(usage)
  if (admin && named !== undefined && named !== 'admin') throw new UsageError(`--admin and --role ${named} contradict each other\n${usage}`)
  const role = admin ? 'admin' : named === undefined ? 'viewer' : userRoles.find((candidate) => candidate === named)
  if (!role) throw new UsageError(`--role must be ${userRoles.join(', ')}; got "${named}"\n${usage}`)
  if (belongsToAccount(role) && accountName === undefined)
    throw new UsageError(`a login with the role ${role} needs --account ACCOUNT\n${usage}`)
  if (!belongsToAccount(role) && accountName !== undefined)
    throw new UsageError(`an admin belongs to no account: leave out --account\n${usage}`)
  return role
}

export async function runUserCommand(store: Store, args: ParsedArgs, json: boolean): Promise<void> {
  const [, action, name] = args.positional
  switch (action) {
    case 'create': {
      const accountName = flagString(args, 'account')
      const role = chooseRole(args, accountName)
      if (!name) throw new UsageError(usage)
      const account = accountName === undefined ? undefined : await requireAccount(store.accounts, accountName)
      const singleSignOn = args.flags.has('sso')
      if (singleSignOn && args.flags.has('password-stdin'))
        throw new UsageError('--sso and --password-stdin exclude each other: a single sign-on login has no password')
      const result = await createUser(
        store,
        { name, role, accountId: account?.id, password: await readPassword(args), singleSignOn },
        changeByCli(),
      )
      const shown = {
        name,
        role: result.user.role,
        account: account?.name ?? null,
        password: result.generated ? result.password : undefined,
        ...(singleSignOn && { single_sign_on: true }),
      }
      const done = `created ${role === 'admin' ? 'admin' : `${role} of account ${accountName}`} ${name}`
      // The bootstrap admin of a gateway with auth.passwords: false is made this way.
      if (singleSignOn)
        return printResult(
          json,
          shown,
          () => `${done}, without a password: it is linked to whoever first signs on with the email or username ${name}`,
        )
      return printResult(json, shown, () => describePassword(result, done))
    }
    case 'list': {
      const users = await listUsers(store.users)
      const names = await accountNames(store.accounts)
      return printResult(
        json,
        users.map((user) => userJson(user, user.accountId === null ? undefined : names.get(user.accountId))),
        () =>
          table([
            ['NAME', 'ROLE', 'ACCOUNT', 'CREATED'],
            ...users.map((user) => [
              user.name,
              user.role,
              user.accountId === null ? '-' : (names.get(user.accountId) ?? '?'),
              formatTime(user.createdAt),
            ]),
          ]) || 'no users',
      )
    }
    case 'delete': {
      if (!name) throw new UsageError(usage)
      await deleteUser(store.users, name, changeByCli())
      return printResult(json, { name, deleted: true }, () => `deleted user ${name} (signed out everywhere)`)
    }
    case 'password': {
      if (!name) throw new UsageError(usage)
      const result = await changePassword(store, name, await readPassword(args), changeByCli())
      return printResult(json, { name, password: result.generated ? result.password : undefined }, () =>
        describePassword(result, `changed the password of ${name} (signed out everywhere)`),
      )
    }
    default:
      throw new UsageError(usage)
  }
}
