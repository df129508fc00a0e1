import { requireAccount } from '../domain/accounts.ts'
import { DomainError } from '../domain/errors.ts'
import type { Store } from '../domain/repositories.ts'
import { presentTask } from '../domain/tasks/present.ts'
import { cancelTask } from '../domain/tasks/service.ts'
import { changeByCli } from './actor.ts'
import { flagInteger, flagString, type ParsedArgs, UsageError } from './args.ts'
import { printResult, table } from './output.ts'

type TaskView = ReturnType<typeof presentTask>

const header = ['ID', 'API', 'STATUS', 'DONE', 'SPENT', 'CREATED']
const row = (task: TaskView) => [
  task.id,
  task.kind,
  task.status,
  `${task.counts.succeeded + task.counts.failed + task.counts.canceled + task.counts.expired}/${task.counts.total}`,
  `$${task.spent}`,
  task.created_at ?? '-',
]

/** `task list [--account NAME] [--limit N]`, `task show ID`, `task cancel ID`: batches of every protocol, one view. */
export async function runTaskCommand(store: Store, args: ParsedArgs, json: boolean): Promise<void> {
  const [, action, id] = args.positional
  if (action === 'list') {
    const limit = flagInteger(args, 'limit') ?? 20
    const name = flagString(args, 'account')
    const accounts = name ? [await requireAccount(store.accounts, name)] : await store.accounts.list()
    const tasks = []
    for (const account of accounts) tasks.push(...(await store.tasks.listTasks(account.id, { limit })))
    const views = tasks
      .sort((a, b) => b.createdAt - a.createdAt)
      .slice(0, limit)
      .map(presentTask)
    printResult(json, views, () => (views.length ? table([header, ...views.map(row)]) : 'no tasks'))
    return
  }
  if ((action === 'show' || action === 'cancel') && id) {
    const taskId = id.replace(/^batches\//, '')
    if (!(await store.tasks.findTask(taskId))) throw new DomainError('not_found', `task ${taskId} does not exist`)
    // The running gateway notices on its next sweep: running items finish, the task then ends `cancelled`.
    if (action === 'cancel') await cancelTask(store.tasks, taskId, changeByCli(), Date.now())
    const view = presentTask((await store.tasks.findTask(taskId))!)
    printResult(json, view, () =>
      [
        table([header, row(view)]),
        `counts: ${Object.entries(view.counts)
          .map(([name, count]) => `${name} ${count}`)
          .join(', ')}`,
        `started: ${view.started_at ?? '-'}  finished: ${view.finished_at ?? '-'}`,
      ].join('\n'),
    )
    return
  }
  throw new UsageError('usage: tollgate task list [--account NAME] [--limit N] | task show ID | task cancel ID')
}
