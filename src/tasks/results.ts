import type { TaskRecord } from '../domain/tasks/records.ts'
import type { TaskService } from '../domain/tasks/service.ts'
import { resultLine } from '../protocols/anthropic/batches.ts'
import { inlined } from '../protocols/gemini/present-batch.ts'
import { outputLine } from '../protocols/openai-chat/batch-items.ts'

/**
 * A task's results as JSONL in its own protocol's shape, one line per item in input order (the console's download):
 * OpenAI's output-file lines (answered and failed items alike), Anthropic's `/results` lines, and Gemini's inlined
 * responses. Built from the items, so it works for a task still running (the items ended so far say so).
 */
export async function* taskResultLines(tasks: TaskService, task: TaskRecord): AsyncGenerator<string> {
  for await (const item of tasks.items(task.id)) {
    if (item.status === 'pending' || item.status === 'running') continue
    if (task.kind === 'openai') yield outputLine(item)
    else if (task.kind === 'anthropic') yield resultLine(item)
    else yield JSON.stringify(inlined(item))
  }
}
