import { queryString } from '../api.ts'
import { AccountSelect } from '../components/account-select.tsx'
import { fractionWidth, Money } from '../components/money.tsx'
import { OlderPages } from '../components/older-pages.tsx'
import { Empty, NumberHeading, TableScroll } from '../components/states.tsx'
import { TaskProgress } from '../components/task-progress.tsx'
import { formatTime } from '../format.ts'
import { PageHeader } from '../layout.tsx'
import { navigate } from '../router.ts'
import type { PageProps } from '../routes.tsx'
import type { Task } from '../types.ts'
import { usePages } from '../use-pages.ts'

const kindNames: Record<Task['kind'], string> = { openai: 'OpenAI', anthropic: 'Anthropic', gemini: 'Gemini' }

export function TaskStatus({ status }: { status: string }) {
  const kind =
    status === 'completed' ? 'ok' : status === 'failed' || status === 'expired' ? 'error' : status.startsWith('cancel') ? 'warn' : 'info'
  return <span class={`badge badge-${kind}`}>{status.replace('_', ' ')}</span>
}

/** Batches of every API, newest first; "Load older" follows the cursor. An admin may narrow them to one account. */
export function Tasks({ session, search }: PageProps) {
  const admin = session.user.role === 'admin'
  const account = admin ? (search.get('account') ?? '') : ''
  const pages = usePages<Task, { tasks: Task[]; next: string | null }>(
    (before) => `/tasks${queryString({ account_id: account, before, limit: 50 })}`,
    (page) => page.tasks,
    account,
  )
  const { rows: tasks, loading, error } = pages
  const width = fractionWidth(tasks.map((task) => task.spent_usd))
  return (
    <>
      <PageHeader title="Tasks" />
      <p class="hint">Batches sent through the OpenAI, Anthropic or Gemini batch APIs, with what they have cost so far.</p>
      {admin && (
        <div class="card filters-form">
          <div class="grid">
            <AccountSelect
              value={account}
              empty="All accounts"
              onValue={(value) => navigate(`/console/tasks${queryString({ account: value })}`)}
            />
          </div>
        </div>
      )}
      {!loading && !error && tasks.length === 0 && (
        <Empty>
          <p>No tasks yet.</p>
          <p class="hint">A batch submitted with any of this gateway's keys shows up here.</p>
        </Empty>
      )}
      {tasks.length > 0 && (
        <TableScroll label="Tasks">
          <table class="stack" data-testid="tasks-table">
            <thead>
              <tr>
                <th scope="col">Task</th>
                {admin && <th scope="col">Account</th>}
                <th scope="col">API</th>
                <th scope="col">Status</th>
                <th scope="col">Progress</th>
                <NumberHeading>Spend</NumberHeading>
                <th scope="col">Created (UTC)</th>
                <th scope="col">Finished (UTC)</th>
              </tr>
            </thead>
            <tbody>
              {tasks.map((task) => (
                <tr key={task.id}>
                  <td data-label="Task">
                    <a href={`/console/tasks/${encodeURIComponent(task.id)}`}>
                      <code>{task.display_name ?? task.id}</code>
                    </a>
                  </td>
                  {admin && <td data-label="Account">{task.account ?? task.account_id}</td>}
                  <td data-label="API">{kindNames[task.kind]}</td>
                  <td data-label="Status">
                    <TaskStatus status={task.status} />
                  </td>
                  <td data-label="Progress">
                    <TaskProgress counts={task.counts} />
                  </td>
                  <td class="number" data-label="Spend">
                    <Money amount={task.spent_usd} width={width} />
                  </td>
                  <td class="nowrap" data-label="Created">
                    {formatTime(task.created_at).replace(' UTC', '')}
                  </td>
                  <td class="nowrap" data-label="Finished">
                    {task.finished_at ? formatTime(task.finished_at).replace(' UTC', '') : <span class="muted">—</span>}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}
      <OlderPages pages={pages} loadingLabel="Loading tasks…" more="Load older tasks" />
    </>
  )
}
