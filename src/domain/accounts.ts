import { DomainError } from './errors.ts'
import { requireValidName } from './names.ts'
import type { AccountRecord } from './records.ts'
import type { AccountRepository } from './repositories.ts'
import { formatUsd, parseUsd } from '../core/money.ts'

/**
 * The largest balance an account may hold: money is a count of nano-dollars in a JavaScript number, exact up to 2^53
 * (about $9 million). A credit past it would be committed and then break every listing that shows the balance.
 */
export const maxBalance = Number.MAX_SAFE_INTEGER

/** A credit or debit that would take a balance below zero or past `maxBalance`; also the repositories' answer when their guard refuses it. */
export function balanceOutOfRange(balance: number, amount: number): DomainError {
  if (balance + amount < 0) return new DomainError('invalid', 'a debit cannot take the balance below zero')
  return new DomainError('invalid', `the balance would be over the largest an account can hold ($${formatUsd(maxBalance)}); it is $${formatUsd(balance)}`)
}

export function parseAmount(value: string): number {
  try {
    return parseUsd(value)
  } catch (error) {
    throw new DomainError('invalid', (error as Error).message)
  }
}

export async function createAccount(accounts: AccountRepository, name: string, openingBalance: number, actor: string): Promise<AccountRecord> {
  requireValidName('account name', name)
  if (openingBalance < 0) throw new DomainError('invalid', 'the opening balance cannot be negative')
  if (await accounts.findByName(name)) throw new DomainError('conflict', `account "${name}" already exists`)
  const now = Date.now()
  const account = await accounts.create(name, now)
  if (openingBalance > 0) return accounts.credit(account.id, openingBalance, 'opening balance', actor, now)
  return account
}

export async function requireAccount(accounts: AccountRepository, name: string): Promise<AccountRecord> {
  const account = await accounts.findByName(name)
  if (!account) throw new DomainError('not_found', `account "${name}" does not exist`)
  return account
}

export async function creditAccount(accounts: AccountRepository, name: string, amount: number, note: string, actor: string): Promise<AccountRecord> {
  if (amount === 0) throw new DomainError('invalid', 'the amount must not be zero')
  const account = await requireAccount(accounts, name)
  // Checked here for a clear answer, and again by the repository in the same statement as the change (a race).
  const after = account.balance + amount
  if (after < 0 || after > maxBalance) throw balanceOutOfRange(account.balance, amount)
  return accounts.credit(account.id, amount, note, actor, Date.now())
}

/** Every account's name by ID: what lists of keys, users and usage show instead of bare account IDs. */
export async function accountNames(accounts: AccountRepository): Promise<Map<number, string>> {
  return new Map((await accounts.list()).map((account) => [account.id, account.name]))
}
