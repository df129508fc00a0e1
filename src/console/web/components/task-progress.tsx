import { count } from '../format.ts'
import type { TaskCounts } from '../types.ts'

/** How far a task is: a bar of ended items, and the counts in words (the bar alone says nothing to a screen reader). */
export function TaskProgress({ counts }: { counts: TaskCounts }) {
  const ended = counts.total - counts.pending
  const others = [
    counts.failed && `${count(counts.failed)} failed`,
    counts.canceled && `${count(counts.canceled)} cancelled`,
    counts.expired && `${count(counts.expired)} expired`,
  ].filter(Boolean)
  return (
    <span class="progress">
      <progress max={counts.total} value={ended} aria-hidden="true" />
      <span class="nowrap">
        {count(ended)} / {count(counts.total)}
      </span>
      <span class="muted nowrap">
        {' '}
        {count(counts.succeeded)} ok{others.length ? `, ${others.join(', ')}` : ''}
      </span>
    </span>
  )
}
