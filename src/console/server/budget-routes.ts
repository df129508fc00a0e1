import { Elysia, t } from 'elysia'
import { invalidRequest } from '../../core/errors.ts'
import { parseUsd } from '../../core/money.ts'
import { figuresOf } from '../../domain/budgets/key-view.ts'
import { budgetJson, projectJson } from '../../domain/budgets/presenters.ts'
import type { BudgetRecord, ProjectRecord } from '../../domain/records.ts'
import type { Services } from '../../edge/services.ts'
import { adminDetail, withAdminToken } from '../admin/gate.ts'
import * as schema from './schemas.ts'
import { findAccount, findKey, findProject } from './scope.ts'
import { notFound } from './respond.ts'
import { signedIn } from './signed-in.ts'

const tags = ['Projects and budgets']

function readUsdField(text: string): number {
  try {
    return parseUsd(text)
  } catch (error) {
    throw invalidRequest(`Invalid value for 'amount_usd': ${(error as Error).message}.`, 'amount_usd')
  }
}

/**
 * Projects and budgets, the same routes at both doors: the console (`/console/api`, a signed-in login) and the admin
 * API (`/admin/api`, an admin token). Every change is BudgetService's (checked, stored with its audit row, applied to
 * the key caches); an account role sees and changes its own account's only, another account's answering 404.
 */
export function budgetRoutes(services: Services, door: 'console' | 'admin') {
  const { store, budgetService } = services
  const prefix = door === 'console' ? '/console/api' : '/admin/api'
  const describe = (summary: string, description?: string) =>
    door === 'admin' ? adminDetail(summary, description) : { tags, summary, description }
  // Both gates give the caller's `actor`, whose account (none for an admin or an admin token) scopes every lookup.
  const guard = (door === 'console' ? signedIn(services) : withAdminToken(services)) as unknown as ReturnType<typeof withAdminToken>

  const visibleProject = (own: number | undefined, id: string): Promise<ProjectRecord> => findProject(services, own, id)
  const visibleBudget = async (own: number | undefined, id: string): Promise<BudgetRecord> => {
    const budget = /^\d{1,15}$/.test(id) ? await store.budgets.findBudget(Number(id)) : undefined
    if (!budget || (own !== undefined && budget.accountId !== own)) throw notFound('No such budget.')
    return budget
  }
  const accountOf = async (own: number | undefined, id: unknown) => {
    const accountId = id ?? own
    if (accountId === undefined || accountId === null) throw invalidRequest(`Missing 'account_id': choose the account.`, 'account_id')
    return findAccount(services, own, accountId)
  }
  const presentProject = async (project: ProjectRecord) =>
    projectJson(
      project,
      (await store.keys.list(project.accountId)).filter((key) => key.projectId === project.id && key.revokedAt === null).length,
    )
  const presentBudget = async (budget: BudgetRecord) => budgetJson(budget, await figuresOf(budget, store.budgets, Date.now()))
  const listQuery = async (own: number | undefined, accountId: string | undefined) =>
    accountId ? (await findAccount(services, own, accountId)).id : own

  // Typed as a plain plugin where it is mounted: its routes' full types would make the app's type too large to check.
  return new Elysia({ name: `${door}-budgets` })
    .use(guard)
    .get(
      `${prefix}/projects`,
      async ({ actor, query }) => {
        const projects = await store.budgets.listProjects(await listQuery(actor.accountId, query.account_id))
        return Promise.all(projects.map(presentProject))
      },
      {
        permission: 'budgets:read',
        query: schema.accountQuery,
        response: { 200: t.Array(schema.project), ...schema.errorResponses },
        detail: describe('List projects'),
      },
    )
    .post(
      `${prefix}/projects`,
      async ({ actor, body, status }) => {
        const account = await accountOf(actor.accountId, body.account_id)
        const { account_id: _, allowed_ips: allowedIps, ...fields } = body
        const project = await budgetService.createProject({ ...fields, allowedIps, accountId: account.id }, actor)
        return status(201, await presentProject(project))
      },
      {
        permission: 'budgets:write',
        ...schema.jsonBody(schema.newProjectBody),
        response: { 201: schema.project, ...schema.errorResponses, 409: schema.consoleError },
        detail: describe('Create a project'),
      },
    )
    .get(`${prefix}/projects/:id`, async ({ actor, params }) => presentProject(await visibleProject(actor.accountId, params.id)), {
      permission: 'budgets:read',
      params: schema.idParams('project'),
      response: { 200: schema.project, ...schema.errorResponses },
      detail: describe('Show a project'),
    })
    .patch(
      `${prefix}/projects/:id`,
      async ({ actor, params, body }) => {
        const project = await visibleProject(actor.accountId, params.id)
        const { allowed_ips: allowedIps, ...fields } = body
        return presentProject(await budgetService.editProject(project.id, { ...fields, allowedIps }, actor))
      },
      {
        permission: 'budgets:write',
        params: schema.idParams('project'),
        ...schema.jsonBody(schema.projectChangesBody),
        response: { 200: schema.project, ...schema.errorResponses },
        detail: describe('Change a project', 'Its models, shared limits and address rules count for its keys within a second.'),
      },
    )
    .delete(
      `${prefix}/projects/:id`,
      async ({ actor, params }) => {
        const project = await visibleProject(actor.accountId, params.id)
        await budgetService.deleteProject(project.id, actor)
        return { deleted: true as const, id: project.id }
      },
      {
        permission: 'budgets:write',
        params: schema.idParams('project'),
        response: { 200: schema.deletedObject, ...schema.errorResponses },
        detail: describe('Delete a project', 'Its keys stay, in no project; its budgets go with it.'),
      },
    )
    .get(
      `${prefix}/budgets`,
      async ({ actor, query }) => {
        const budgets = await store.budgets.listBudgets(await listQuery(actor.accountId, query.account_id))
        return Promise.all(budgets.map(presentBudget))
      },
      {
        permission: 'budgets:read',
        query: schema.accountQuery,
        response: { 200: t.Array(schema.budget), ...schema.errorResponses },
        detail: describe('List budgets', 'Each with its current period: spent, held, remaining, when it started and when it resets.'),
      },
    )
    .post(
      `${prefix}/budgets`,
      async ({ actor, body, status }) => {
        const account = await accountOf(actor.accountId, body.account_id)
        if (body.key_id !== undefined) await findKey(services, account.id, body.key_id)
        const budget = await budgetService.createBudget(
          {
            accountId: account.id,
            scope: body.scope,
            projectId: body.project_id,
            keyId: body.key_id,
            amount: readUsdField(body.amount_usd),
            period: body.period,
            timeZone: body.time_zone,
          },
          actor,
        )
        return status(201, await presentBudget(budget))
      },
      {
        permission: 'budgets:write',
        ...schema.jsonBody(schema.newBudgetBody),
        response: { 201: schema.budget, ...schema.errorResponses },
        detail: describe('Create a budget'),
      },
    )
    .patch(
      `${prefix}/budgets/:id`,
      async ({ actor, params, body }) => {
        const budget = await visibleBudget(actor.accountId, params.id)
        const changes = {
          amount: body.amount_usd === undefined ? undefined : readUsdField(body.amount_usd),
          period: body.period,
          timeZone: body.time_zone,
        }
        return presentBudget(await budgetService.editBudget(budget.id, changes, actor))
      },
      {
        permission: 'budgets:write',
        params: schema.idParams('budget'),
        ...schema.jsonBody(schema.budgetChangesBody),
        response: { 200: schema.budget, ...schema.errorResponses },
        detail: describe('Change a budget'),
      },
    )
    .delete(
      `${prefix}/budgets/:id`,
      async ({ actor, params }) => {
        const budget = await visibleBudget(actor.accountId, params.id)
        await budgetService.deleteBudget(budget.id, actor)
        return { deleted: true as const, id: budget.id }
      },
      {
        permission: 'budgets:write',
        params: schema.idParams('budget'),
        response: { 200: schema.deletedObject, ...schema.errorResponses },
        detail: describe('Delete a budget'),
      },
    ) as unknown as Elysia
}
