import { useState } from 'preact/hooks'
import { can } from '../access.ts'
import { callApi, queryString } from '../api.ts'
import { AccountSelect } from '../components/account-select.tsx'
import { BudgetEditForm } from '../components/budget-edit.tsx'
import { NewBudgetForm, NewProjectForm } from '../components/budget-create.tsx'
import { Money } from '../components/money.tsx'
import { DeleteProjectButton, ProjectEditForm } from '../components/project-edit.tsx'
import { Empty, NumberHeading, Resolved, TableScroll } from '../components/states.tsx'
import { formatTime } from '../format.ts'
import { PageHeader } from '../layout.tsx'
import { navigate } from '../router.ts'
import type { PageProps } from '../routes.tsx'
import type { Budget, Project } from '../types.ts'
import { useResource } from '../use-resource.ts'

const periodWords: Record<string, string> = { day: 'Daily', week: 'Weekly', month: 'Monthly', total: 'Lifetime' }

/** What a budget applies to, in words: the account, a project by name, or a key by id. */
function describeScope(budget: Budget, projects: Project[]): string {
  if (budget.scope === 'project')
    return `Project ${projects.find((project) => project.id === budget.project_id)?.name ?? budget.project_id}`
  if (budget.scope === 'key') return `Key ${budget.key_id}`
  return 'Whole account'
}

/** Spent (and held) of the period's amount as a bar: cents are exact strings, the bar only needs their ratio. */
function BudgetBar({ budget }: { budget: Budget }) {
  const amount = Number(budget.amount_usd)
  const used = Number(budget.spent_usd) + Number(budget.reserved_usd)
  const percent = amount > 0 ? Math.min(100, Math.round((used / amount) * 100)) : 0
  return (
    <span class="progress">
      <progress max={100} value={percent} aria-label={`${percent}% of the budget used`} />
      <span>{percent}%</span>
    </span>
  )
}

/** A row's Edit button, named for what it edits (screen readers hear the row's name, not "Edit" alone). */
function EditButton({ label, onClick }: { label: string; onClick: () => void }) {
  return (
    <button type="button" class="button small secondary" onClick={onClick} aria-label={label}>
      Edit
    </button>
  )
}

/**
 * Projects and budgets: each budget's current period with a bar of what is spent, what is left and when it resets
 * (calendar periods in their zone, fixed windows from their first request). Those who may change them get the forms.
 */
export function Budgets({ session, search }: PageProps) {
  const admin = session.user.role === 'admin'
  const writes = can(session, 'budgets:write')
  const account = admin ? (search.get('account') ?? '') : String(session.user.account?.id ?? '')
  const query = queryString({ account_id: admin ? account : undefined })
  const projects = useResource<Project[]>(`/projects${query}`)
  const budgets = useResource<Budget[]>(`/budgets${query}`)
  const [editingBudget, setEditingBudget] = useState<Budget>()
  const [editingProject, setEditingProject] = useState<Project>()
  const reload = () => {
    setEditingBudget(undefined)
    setEditingProject(undefined)
    projects.reload()
    budgets.reload()
  }
  return (
    <>
      <PageHeader title="Projects and budgets" />
      {admin && (
        <div class="filters">
          <AccountSelect
            value={account}
            empty="All accounts"
            onValue={(value) => navigate(`/console/budgets${queryString({ account: value })}`, { replace: true })}
          />
        </div>
      )}
      <section aria-label="Budgets">
        <h2>Budgets</h2>
        <Resolved resource={budgets} label="Loading budgets…">
          {(list) =>
            list.length === 0 ? (
              <Empty>
                <p>No budgets yet.</p>
                <p class="hint">
                  A budget caps what an account, a project or a key may spend per day, week, month, fixed window or in total.
                </p>
              </Empty>
            ) : (
              <TableScroll label="Budgets">
                <table class="stack" data-testid="budgets-table">
                  <thead>
                    <tr>
                      <th scope="col">For</th>
                      <th scope="col">Period</th>
                      <NumberHeading>Amount</NumberHeading>
                      <NumberHeading>Spent</NumberHeading>
                      <NumberHeading>Remaining</NumberHeading>
                      <th scope="col">Used</th>
                      <th scope="col">Resets (UTC)</th>
                      {writes && (
                        <th scope="col">
                          <span class="visually-hidden">Actions</span>
                        </th>
                      )}
                    </tr>
                  </thead>
                  <tbody>
                    {list.map((budget) => (
                      <tr key={budget.id} data-budget-id={budget.id}>
                        <td data-label="For">{describeScope(budget, projects.data ?? [])}</td>
                        <td data-label="Period">
                          {periodWords[budget.period] ?? `${budget.period} window`}
                          {['day', 'week', 'month'].includes(budget.period) && budget.time_zone !== 'UTC' ? ` (${budget.time_zone})` : ''}
                        </td>
                        <td class="number" data-label="Amount">
                          <Money amount={budget.amount_usd} />
                        </td>
                        <td class="number" data-label="Spent">
                          <Money amount={budget.spent_usd} />
                        </td>
                        <td class="number" data-label="Remaining">
                          <Money amount={budget.remaining_usd} />
                        </td>
                        <td data-label="Used">
                          <BudgetBar budget={budget} />
                        </td>
                        <td class="nowrap" data-label="Resets" data-testid="budget-resets">
                          {budget.resets_at ? (
                            formatTime(budget.resets_at).replace(' UTC', '')
                          ) : (
                            <span class="muted">{budget.period === 'total' ? 'never' : 'with its first request'}</span>
                          )}
                        </td>
                        {writes && (
                          <td class="row-actions">
                            <EditButton label={`Edit budget ${budget.id}`} onClick={() => setEditingBudget(budget)} />
                            <button
                              type="button"
                              class="button small secondary"
                              onClick={async () => {
                                await callApi('DELETE', `/budgets/${budget.id}`)
                                reload()
                              }}
                            >
                              Delete
                            </button>
                          </td>
                        )}
                      </tr>
                    ))}
                  </tbody>
                </table>
              </TableScroll>
            )
          }
        </Resolved>
      </section>
      {editingBudget && (
        <BudgetEditForm
          key={editingBudget.id}
          budget={editingBudget}
          label={describeScope(editingBudget, projects.data ?? [])}
          onDone={reload}
        />
      )}
      <section aria-label="Projects">
        <h2>Projects</h2>
        <Resolved resource={projects} label="Loading projects…">
          {(list) =>
            list.length === 0 ? (
              <Empty>
                <p>No projects yet.</p>
                <p class="hint">A project groups keys: they share its models, limits and budgets.</p>
              </Empty>
            ) : (
              <TableScroll label="Projects">
                <table class="stack" data-testid="projects-table">
                  <thead>
                    <tr>
                      <th scope="col">Name</th>
                      <th scope="col">Models</th>
                      <th scope="col">Shared limits</th>
                      <th scope="col">Allowed addresses</th>
                      <NumberHeading>Keys</NumberHeading>
                      {writes && (
                        <th scope="col">
                          <span class="visually-hidden">Actions</span>
                        </th>
                      )}
                    </tr>
                  </thead>
                  <tbody>
                    {list.map((project) => (
                      <tr key={project.id} data-project-id={project.id}>
                        <td data-label="Name">{project.name}</td>
                        <td data-label="Models">{project.models ? project.models.join(', ') : <span class="muted">all</span>}</td>
                        <td data-label="Shared limits">
                          {[
                            project.rpm && `${project.rpm} rpm`,
                            project.tpm && `${project.tpm} tpm`,
                            project.concurrency && `${project.concurrency} at once`,
                          ]
                            .filter(Boolean)
                            .join(', ') || <span class="muted">none</span>}
                        </td>
                        <td data-label="Allowed addresses">
                          {project.allowed_ips ? project.allowed_ips.join(', ') : <span class="muted">any</span>}
                        </td>
                        <td class="number" data-label="Keys">
                          {project.keys}
                        </td>
                        {writes && (
                          <td class="row-actions">
                            <EditButton label={`Edit project ${project.name}`} onClick={() => setEditingProject(project)} />
                            <DeleteProjectButton project={project} onDeleted={reload} />
                          </td>
                        )}
                      </tr>
                    ))}
                  </tbody>
                </table>
              </TableScroll>
            )
          }
        </Resolved>
      </section>
      {editingProject && <ProjectEditForm key={editingProject.id} project={editingProject} models={session.models} onDone={reload} />}
      {writes && account && <NewProjectForm accountId={Number(account)} onCreated={reload} />}
      {writes && account && <NewBudgetForm accountId={Number(account)} projects={projects.data ?? []} onCreated={reload} />}
    </>
  )
}
