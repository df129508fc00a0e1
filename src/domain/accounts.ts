import { DomainError } from './errors.ts'
import { requireValidName } from './names.ts'
import type { AccountRecord } from './records.ts'
import type { AccountRepository } from './repositories.ts'
import { parseUsd } from '../core/money.ts'

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
  if (account.balance + amount < 0) throw new DomainError('invalid', 'a debit cannot take the balance below zero')
  return accounts.credit(account.id, amount, note, actor, Date.now())
}

/** Every account's name by ID: what lists of keys, users and usage show instead of bare account IDs. */
export async function accountNames(accounts: AccountRepository): Promise<Map<number, string>> {
  return new Map((await accounts.list()).map((account) => [account.id, account.name]))
}
