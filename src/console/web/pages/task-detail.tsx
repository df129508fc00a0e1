import type { ComponentChildren } from 'preact'
import { useEffect, useState } from 'preact/hooks'
import { can } from '../access.ts'
import { getJson, queryString } from '../api.ts'
import { fractionWidth, Money } from '../components/money.tsx'
import { Empty, ErrorNotice, Loading, NumberHeading, Resolved, TableScroll } from '../components/states.tsx'
import { TaskProgress } from '../components/task-progress.tsx'
import { formatTime, usd } from '../format.ts'
import { PageHeader } from '../layout.tsx'
import type { PageProps } from '../routes.tsx'
import type { Task, TaskItem } from '../types.ts'
import { useResource } from '../use-resource.ts'
import { TaskStatus } from './tasks.tsx'

const itemBadge: Record<TaskItem['status'], string> = {
  pending: 'info',
  running: 'info',
  succeeded: 'ok',
  errored: 'error',
  canceled: 'warn',
  expired: 'warn',
}
const kindNames: Record<Task['kind'], string> = { openai: 'OpenAI batch', anthropic: 'Anthropic message batch', gemini: 'Gemini batch' }

function Item({ label, children }: { label: string; children: ComponentChildren }) {
  return (
    <div>
      <dt>{label}</dt>
      <dd>{children}</dd>
    </div>
  )
}

/** The items in input order, 100 at a time. */
function ItemList({ task }: { task: Task }) {
  const [items, setItems] = useState<TaskItem[]>([])
  const [next, setNext] = useState<string | null>(null)
  const [loading, setLoading] = useState(true)
  const [error, setError] = useState<Error>()
  const load = async (after: string | null) => {
    setLoading(true)
    setError(undefined)
    try {
      const page = await getJson<{ items: TaskItem[]; next: string | null }>(
        `/tasks/${encodeURIComponent(task.id)}/items${queryString({ after })}`,
      )
      setItems((previous) => (after ? [...previous, ...page.items] : page.items))
      setNext(page.next)
    } catch (failure) {
      setError(failure as Error)
    }
    setLoading(false)
  }
  useEffect(() => void load(null), [task.id, task.counts.pending])
  const width = fractionWidth(items.map((item) => item.cost_usd))
  return (
    <>
      {items.length > 0 && (
        <TableScroll label="Items">
          <table class="stack" data-testid="task-items">
            <thead>
              <tr>
                <NumberHeading>#</NumberHeading>
                <th scope="col">Custom ID</th>
                <th scope="col">Status</th>
                <th scope="col">Error</th>
                <NumberHeading>Cost</NumberHeading>
                <th scope="col">Finished (UTC)</th>
              </tr>
            </thead>
            <tbody>
              {items.map((item) => (
                <tr key={item.position}>
                  <td class="number" data-label="#">
                    {item.position + 1}
                  </td>
                  <td data-label="Custom ID">
                    <code>{item.custom_id}</code>
                  </td>
                  <td data-label="Status">
                    <span class={`badge badge-${itemBadge[item.status]}`}>{item.status}</span>
                    {item.status_code !== null && <span class="muted"> {item.status_code}</span>}
                  </td>
                  <td data-label="Error">{item.error ?? <span class="muted">—</span>}</td>
                  <td class="number" data-label="Cost">
                    <Money amount={item.cost_usd} width={width} />
                  </td>
                  <td class="nowrap" data-label="Finished">
                    {item.finished_at ? formatTime(item.finished_at).replace(' UTC', '') : <span class="muted">—</span>}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}
      {error && <ErrorNotice error={error} retry={() => void load(items.length ? next : null)} />}
      {loading && <Loading label="Loading items…" />}
      {!loading && next && (
        <button type="button" class="button secondary" onClick={() => void load(next)}>
          Load more items
        </button>
      )}
    </>
  )
}

/** One batch: where it stands, what it cost, each item's status, and its results as a file. */
export function TaskDetail({ session, params }: PageProps) {
  const resource = useResource<Task>(`/tasks/${encodeURIComponent(params.id!)}`)
  return (
    <Resolved
      resource={resource}
      label="Loading the task…"
      missing={
        <>
          <PageHeader title="Task not found" />
          <Empty>
            <p>There is no task with this ID in your account.</p>
            <p>
              <a href="/console/tasks">Back to tasks</a>
            </p>
          </Empty>
        </>
      }
    >
      {(task) => (
        <>
          <PageHeader title={task.display_name ?? task.id}>
            {can(session, 'tasks:results') && (
              <a class="button" href={`/console/api/tasks/${encodeURIComponent(task.id)}/results`} download={`${task.id}_results.jsonl`}>
                Download results (JSONL)
              </a>
            )}
            <button type="button" class="button secondary" onClick={resource.reload}>
              Refresh
            </button>
          </PageHeader>
          <section class="card">
            <dl class="details">
              <Item label="Task">
                <code>{task.id}</code>
              </Item>
              <Item label="Kind">{kindNames[task.kind]}</Item>
              <Item label="Status">
                <TaskStatus status={task.status} />
              </Item>
              {session.user.role === 'admin' && (
                <Item label="Account">
                  <a href={`/console/accounts/${task.account_id}`}>{task.account ?? task.account_id}</a>
                </Item>
              )}
              <Item label="Key">
                <a href={`/console/keys/${encodeURIComponent(task.key_id)}`}>
                  <code>{task.key_id}</code>
                </a>
              </Item>
              <Item label="Endpoint">
                <code>{task.endpoint}</code>
                {task.model && (
                  <>
                    {' '}
                    · <code>{task.model}</code>
                  </>
                )}
              </Item>
              <Item label="Progress">
                <TaskProgress counts={task.counts} />
              </Item>
              <Item label="Spent so far">
                <span class="money" data-testid="task-spent">
                  {usd(task.spent_usd)}
                </span>
              </Item>
              <Item label="Created">{formatTime(task.created_at)}</Item>
              <Item label="Started">{formatTime(task.started_at)}</Item>
              <Item label="Finished">
                {task.finished_at ? formatTime(task.finished_at) : `not yet (expires ${formatTime(task.expires_at)})`}
              </Item>
            </dl>
          </section>
          {can(session, 'tasks:results') && (
            <p class="hint">
              The results file holds one line per ended item, in the shape the {kindNames[task.kind].split(' ')[0]} API gives them.
            </p>
          )}
          <h2>Items</h2>
          <ItemList task={task} />
        </>
      )}
    </Resolved>
  )
}
