import { expect, test } from 'bun:test'
import { existsSync, mkdirSync, mkdtempSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sweepOrphanedUploads, uploadSpoolPrefix } from './upload-spool.ts'

/** A process id no process has any more: a child that has exited. */
async function deadPid(): Promise<number> {
  const child = Bun.spawn(['true'])
  await child.exited
  return child.pid
}

test("a start removes the temporary uploads of processes no longer running, and keeps a running one's", async () => {
  const directory = mkdtempSync(join(tmpdir(), 'tollgate-sweep-test-'))
  const dead = await deadPid()
  const live = Bun.spawn(['sleep', '30'])
  const entries = {
    deadAudio: `tollgate-audio-upload-${dead}-0b5c3a1e-2f4d-4c8e-9d7a-1234567890ab`,
    deadEdit: `tollgate-edit-${dead}-AbC123`,
    liveAudio: `tollgate-audio-upload-${live.pid}-0b5c3a1e-2f4d-4c8e-9d7a-1234567890ab`,
    ours: `tollgate-edit-${process.pid}-XyZ789`,
    oldOwnerless: 'tollgate-edit-Q1w2E3',
    newOwnerless: 'tollgate-audio-upload-0b5c3a1e-2f4d-4c8e-9d7a-1234567890ab',
    unrelated: `tollgate-report-${dead}-x`,
  }
  for (const name of [entries.deadAudio, entries.liveAudio, entries.newOwnerless, entries.unrelated])
    writeFileSync(join(directory, name), 'audio')
  for (const name of [entries.deadEdit, entries.ours, entries.oldOwnerless]) {
    mkdirSync(join(directory, name))
    writeFileSync(join(directory, name, 'image-0'), 'png')
  }
  const twoDaysAgo = (Date.now() - 2 * 24 * 60 * 60 * 1000) / 1000
  utimesSync(join(directory, entries.oldOwnerless), twoDaysAgo, twoDaysAgo)
  try {
    expect(await sweepOrphanedUploads(directory)).toBe(3)
    const left = Object.fromEntries(Object.entries(entries).map(([label, name]) => [label, existsSync(join(directory, name))]))
    expect(left).toEqual({
      deadAudio: false,
      deadEdit: false,
      liveAudio: true,
      ours: true,
      oldOwnerless: false,
      newOwnerless: true,
      unrelated: true,
    })
  } finally {
    live.kill()
  }
})

test("this process's uploads carry its id, so another instance's start leaves them alone", () => {
  expect(uploadSpoolPrefix('audio-upload')).toBe(join(tmpdir(), `tollgate-audio-upload-${process.pid}-`))
  expect(uploadSpoolPrefix('edit')).toBe(join(tmpdir(), `tollgate-edit-${process.pid}-`))
})

test('a temp folder that cannot be read is nothing to sweep', async () => {
  expect(await sweepOrphanedUploads(join(tmpdir(), 'tollgate-no-such-folder-for-the-sweep'))).toBe(0)
})
