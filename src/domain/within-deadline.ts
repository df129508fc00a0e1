/** A promise's value, or `overdue` once `ms` have passed without one (the promise runs on, unwatched). */
export function withinDeadline<T>(promise: Promise<T>, ms: number): Promise<T | typeof overdue> {
  // Already settled (SQLite's writes are synchronous): no deadline to watch. The timer, the race and their promises
  // were ~9 of the objects a bill committed alone left to the collector (bench/census.ts).
  if (Bun.peek.status(promise) !== 'pending') return promise
  let timer: ReturnType<typeof setTimeout> | undefined
  const late = new Promise<typeof overdue>((resolve) => (timer = setTimeout(resolve, ms, overdue)))
  return Promise.race([promise, late]).finally(() => clearTimeout(timer))
}

export const overdue = Symbol('overdue')
