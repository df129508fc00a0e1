import { formatUsd } from '../core/money.ts'
import { accountNames, parseAmount, requireAccount } from '../domain/accounts.ts'
import { figuresOf } from '../domain/budgets/key-view.ts'
import { budgetJson, projectJson } from '../domain/budgets/presenters.ts'
import type { ProjectChanges } from '../domain/budgets/repository.ts'
import type { BudgetService } from '../domain/budgets/service.ts'
import { DomainError } from '../domain/errors.ts'
import type { ProjectRecord } from '../domain/records.ts'
import type { Store } from '../domain/repositories.ts'
import { changeByCli } from './actor.ts'
import { flagString, type ParsedArgs, UsageError } from './args.ts'
import { readAllowedIps, readNameModelsLimits } from './key-flags.ts'
import { formatTime, printResult, table } from './output.ts'

/** A project of an account by its name (`--project NAME`), or a not-found naming both. */
export async function requireProject(store: Store, accountId: number, name: string): Promise<ProjectRecord> {
  const project = (await store.budgets.listProjects(accountId)).find((candidate) => candidate.name === name)
  if (!project) throw new DomainError('not_found', `project "${name}" does not exist in this account`)
  return project
}

const numericId = (text: string | undefined, what: string): number => {
  if (!text || !/^\d{1,15}$/.test(text))
    throw new UsageError(`usage: tollgate ${what} ID (a number, as ${what.split(' ')[0]} list shows it)`)
  return Number(text)
}

/** A project's changes from its flags, as a key's are read (`all` lifts the model list, `none` clears a limit, `any` the address rules). */
function readProjectFlags(args: ParsedArgs): ProjectChanges {
  const { name, ...rest } = readNameModelsLimits(args)
  const allowedIps = readAllowedIps(args)
  return { ...rest, ...(name !== undefined && name !== null && { name }), ...(allowedIps !== undefined && { allowedIps }) }
}

const describeProjectLimits = (project: ProjectRecord) =>
  [
    project.rpm && `rpm=${project.rpm}`,
    project.tpm && `tpm=${project.tpm}`,
    project.concurrency && `conc=${project.concurrency}`,
    project.allowedIps !== null && `from=${project.allowedIps.join(',')}`,
  ]
    .filter(Boolean)
    .join(' ') || '-'

/** `tollgate project …`: every change through BudgetService (checked, stored with its audit row). */
export async function runProjectCommand(store: Store, service: BudgetService, args: ParsedArgs, json: boolean): Promise<void> {
  const [, action, operand] = args.positional
  const keysIn = async (project: ProjectRecord) =>
    (await store.keys.list(project.accountId)).filter((key) => key.projectId === project.id && key.revokedAt === null).length
  switch (action) {
    case 'create': {
      const accountName = flagString(args, 'account')
      if (!accountName) throw new UsageError('usage: tollgate project create NAME --account NAME')
      const account = await requireAccount(store.accounts, accountName)
      const project = await service.createProject({ ...readProjectFlags(args), accountId: account.id, name: operand! }, changeByCli())
      return printResult(json, projectJson(project, 0), () => `created project ${project.id} "${project.name}" for ${account.name}`)
    }
    case 'list': {
      const accountName = flagString(args, 'account')
      const account = accountName ? await requireAccount(store.accounts, accountName) : undefined
      const projects = await store.budgets.listProjects(account?.id)
      const names = await accountNames(store.accounts)
      const counts = await Promise.all(projects.map(keysIn))
      return printResult(
        json,
        projects.map((project, index) => projectJson(project, counts[index]!)),
        () =>
          projects.length === 0
            ? 'no projects'
            : table([
                ['ID', 'ACCOUNT', 'NAME', 'MODELS', 'SHARED LIMITS', 'KEYS'],
                ...projects.map((project, index) => [
                  String(project.id),
                  names.get(project.accountId) ?? '?',
                  project.name,
                  project.models?.join(',') ?? 'all',
                  describeProjectLimits(project),
                  String(counts[index]),
                ]),
              ]),
      )
    }
    case 'edit': {
      const project = await service.editProject(numericId(operand, 'project edit'), readProjectFlags(args), changeByCli())
      return printResult(
        json,
        projectJson(project, await keysIn(project)),
        () => `changed project ${project.id}: models ${project.models?.join(',') ?? 'all'}, limits ${describeProjectLimits(project)}`,
      )
    }
    case 'delete': {
      const id = numericId(operand, 'project delete')
      await service.deleteProject(id, changeByCli())
      return printResult(json, { deleted: true, id }, () => `deleted project ${id}: its keys are in no project now`)
    }
    default:
      throw new UsageError('usage: tollgate project create|list|edit|delete …')
  }
}

/** `tollgate budget …`: every change through BudgetService; `list` shows each budget's current period. */
export async function runBudgetCommand(store: Store, service: BudgetService, args: ParsedArgs, json: boolean): Promise<void> {
  const [, action, operand] = args.positional
  const amount = () => (flagString(args, 'amount') === undefined ? undefined : parseAmount(flagString(args, 'amount')!))
  const present = async (id: number) => {
    const budget = (await store.budgets.findBudget(id))!
    return budgetJson(budget, await figuresOf(budget, store.budgets, Date.now()))
  }
  switch (action) {
    case 'create': {
      const accountName = flagString(args, 'account')
      const period = flagString(args, 'period')
      if (!accountName || !period || amount() === undefined)
        throw new UsageError('usage: tollgate budget create --account NAME [--project NAME | --key ID] --amount USD --period PERIOD')
      const account = await requireAccount(store.accounts, accountName)
      const projectName = flagString(args, 'project')
      const keyId = flagString(args, 'key')
      if (projectName && keyId) throw new UsageError('a budget is for an account, a project or a key: give --project or --key, not both')
      const project = projectName ? await requireProject(store, account.id, projectName) : undefined
      const budget = await service.createBudget(
        {
          accountId: account.id,
          scope: project ? 'project' : keyId ? 'key' : 'account',
          projectId: project?.id,
          keyId,
          amount: amount()!,
          period,
          timeZone: flagString(args, 'time-zone'),
        },
        changeByCli(),
      )
      return printResult(
        json,
        await present(budget.id),
        () =>
          `created budget ${budget.id}: $${formatUsd(budget.amount)} per ${budget.period} for ${budget.scope} ${project?.name ?? keyId ?? account.name}`,
      )
    }
    case 'list': {
      const accountName = flagString(args, 'account')
      const account = accountName ? await requireAccount(store.accounts, accountName) : undefined
      const rows = await Promise.all((await store.budgets.listBudgets(account?.id)).map((budget) => present(budget.id)))
      return printResult(json, rows, () =>
        rows.length === 0
          ? 'no budgets'
          : table([
              ['ID', 'SCOPE', 'OF', 'PERIOD', 'AMOUNT', 'SPENT', 'REMAINING', 'RESETS'],
              ...rows.map((row) => [
                String(row.id),
                row.scope,
                row.key_id ?? (row.project_id === null ? String(row.account_id) : `project ${row.project_id}`),
                row.period === 'day' || row.period === 'week' || row.period === 'month' ? `${row.period} (${row.time_zone})` : row.period,
                `$${row.amount_usd}`,
                `$${row.spent_usd}`,
                `$${row.remaining_usd}`,
                row.resets_at ? formatTime(Date.parse(row.resets_at)) : '-',
              ]),
            ]),
      )
    }
    case 'edit': {
      const budget = await service.editBudget(
        numericId(operand, 'budget edit'),
        { amount: amount(), period: flagString(args, 'period'), timeZone: flagString(args, 'time-zone') },
        changeByCli(),
      )
      return printResult(
        json,
        await present(budget.id),
        () => `changed budget ${budget.id}: $${formatUsd(budget.amount)} per ${budget.period}`,
      )
    }
    case 'delete': {
      const id = numericId(operand, 'budget delete')
      await service.deleteBudget(id, changeByCli())
      return printResult(json, { deleted: true, id }, () => `deleted budget ${id}`)
    }
    default:
      throw new UsageError('usage: tollgate budget create|list|edit|delete …')
  }
}
