/**
 * A Bun macro: `bundleConsole()` runs while the code is transpiled — at `bun build --compile` time for the
 * binary, at start-up under `bun src/main.ts` — and its result is inlined as a literal. So the binary carries
 * every console asset in memory (nothing read from disk or fetched at run time), and development always
 * serves the current sources without a separate build step.
 */
export function bundleConsole(): Record<string, string> {
  const child = Bun.spawnSync([process.execPath, `${import.meta.dir}/build-web.ts`], { stdout: 'pipe', stderr: 'pipe' })
  if (!child.success) throw new Error(`bundling the console failed:\n${child.stderr.toString()}`)
  return JSON.parse(child.stdout.toString()) as Record<string, string>
}
