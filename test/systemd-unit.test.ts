import { expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'

/** deploy/tollgate.service is called hardened: systemd's own rating must agree (2.0 or lower: "OK"). */
const unit = join(import.meta.dir, '..', 'deploy', 'tollgate.service')
const analyze = Bun.which('systemd-analyze')

test.skipIf(!analyze)('systemd-analyze security rates the unit 2.0 or lower', () => {
  const result = Bun.spawnSync([analyze!, 'security', '--offline=yes', '--no-pager', unit], { stdout: 'pipe', stderr: 'pipe' })
  const output = result.stdout.toString() + result.stderr.toString()
  const score = /Overall exposure level for tollgate\.service: ([\d.]+)/.exec(output)
  expect(score, output).not.toBeNull()
  expect(Number(score![1])).toBeLessThanOrEqual(2)
})

test('files the service creates are private to it, and the JIT is not forbidden', () => {
  const text = readFileSync(unit, 'utf8')
  expect(text).toMatch(/^UMask=0077$/m)
  // Bun's JavaScript engine needs writable executable memory: this setting would kill the service at start.
  expect(text).not.toMatch(/^MemoryDenyWriteExecute=/m)
})
