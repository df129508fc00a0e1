import { DomainError } from './errors.ts'
import { requireValidName } from './names.ts'
import type { AccountRecord } from './records.ts'
import type { AccountRepository } from './repositories.ts'
import { formatUsd, parseUsd } from '../core/money.ts'
import { type Actor, systemActor } from './actor.ts'
import { auditChange } from './audit/note.ts'
import { accountObject } from './audit/objects.ts'

/**
 * The largest balance an account may hold: money is a count of nano-dollars in a JavaScript number, exact up to 2^53
 * (about $9 million). A credit past it would be committed and then break every listing that shows the balance.
 */
export const maxBalance = Number.MAX_SAFE_INTEGER

/** A credit or debit that would take a balance below zero or past `maxBalance`; also the repositories' answer when their guard refuses it. */
export function balanceOutOfRange(balance: number, amount: number): DomainError {
  if (balance + amount < 0) return new DomainError('invalid', 'a debit cannot take the balance below zero')
  return new DomainError(
    'invalid',
    `the balance would be over the largest an account can hold ($${formatUsd(maxBalance)}); it is $${formatUsd(balance)}`,
  )
}

export function parseAmount(value: string): number {
  try {
    return parseUsd(value)
  } catch (error) {
    throw new DomainError('invalid', (error as Error).message)
  }
}

/** Who made a change: an actor, or (fixtures, scripts) a label the gateway itself is recorded under. */
const actorOf = (actor: Actor | string) => (typeof actor === 'string' ? systemActor(actor) : actor)

/** A new account, its opening balance (a ledger entry) and its audit row, in one transaction. */
export async function createAccount(
  accounts: AccountRepository,
  name: string,
  openingBalance: number,
  by: Actor | string,
): Promise<AccountRecord> {
  requireValidName('account name', name)
  if (openingBalance < 0) throw new DomainError('invalid', 'the opening balance cannot be negative')
  if (await accounts.findByName(name)) throw new DomainError('conflict', `account "${name}" already exists`)
  const at = Date.now()
  const actor = actorOf(by)
  const opening = openingBalance > 0 ? { amount: openingBalance, note: 'opening balance', actor: actor.label } : undefined
  return accounts.create(name, at, { opening, audit: auditChange(actor, 'account.create', accountObject, { at }) })
}

export async function requireAccount(accounts: AccountRepository, name: string): Promise<AccountRecord> {
  const account = await accounts.findByName(name)
  if (!account) throw new DomainError('not_found', `account "${name}" does not exist`)
  return account
}

/** Money in (or, negative, out): the balance, its ledger entry and the audit row (`account.credit` or `account.debit`) change together. */
export async function creditAccount(
  accounts: AccountRepository,
  name: string,
  amount: number,
  note: string,
  by: Actor | string,
): Promise<AccountRecord> {
  if (amount === 0) throw new DomainError('invalid', 'the amount must not be zero')
  const account = await requireAccount(accounts, name)
  // Checked here for a clear answer, and again by the repository in the same statement as the change (a race).
  const after = account.balance + amount
  if (after < 0 || after > maxBalance) throw balanceOutOfRange(account.balance, amount)
  const at = Date.now()
  const actor = actorOf(by)
  const audit = auditChange(actor, amount > 0 ? 'account.credit' : 'account.debit', accountObject, {
    at,
    detail: { amount_usd: formatUsd(amount), note },
  })
  return accounts.credit(account.id, amount, note, actor.label, at, audit)
}

/** Every account's name by ID: what lists of keys, users and usage show instead of bare account IDs. */
export async function accountNames(accounts: AccountRepository): Promise<Map<number, string>> {
  return new Map((await accounts.list()).map((account) => [account.id, account.name]))
}
