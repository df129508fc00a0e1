/**
 * Read `read()` until `done` says so or `ms` pass; returns the last value read (the caller's expectations then say
 * what was wrong with it, rather than a bare timeout).
 */
export async function pollUntil<T>(read: () => Promise<T>, done: (value: T) => boolean, ms = 15_000, everyMs = 25): Promise<T> {
  const deadline = Date.now() + ms
  let value = await read()
  while (!done(value) && Date.now() < deadline) {
    await Bun.sleep(everyMs)
    value = await read()
  }
  return value
}
