import { expect, test } from 'bun:test'
import { resolve } from 'node:path'

/** `npm test` checks PostgreSQL before running anything, and says what is missing instead of failing in unnamed hooks. */
test('scripts/test.sh stops with a clear message when PostgreSQL does not answer', () => {
  const result = Bun.spawnSync(['sh', 'scripts/test.sh', 'test/no-such-test-file.test.ts'], {
    cwd: resolve(import.meta.dir, '..'),
    env: { ...process.env, TOLLGATE_TEST_POSTGRES: 'postgres://postgres@127.0.0.1:1/test' },
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const stderr = result.stderr.toString()
  expect(result.exitCode).toBe(1)
  expect(stderr).toContain('PostgreSQL at postgres://postgres@127.0.0.1:1/test did not answer')
  expect(stderr).toContain('npm test needs PostgreSQL')
}, 60_000)
