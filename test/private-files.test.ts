import { expect, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import OpenAI from 'openai'
import { makeWorkspace, runCli, startServe } from './support/cli.ts'
import { startTestGateway } from './support/gateway.ts'

/** The SQLite database holds password and key hashes: its files are the owner's alone, whatever the umask. */
test('the SQLite database and its -wal and -shm files are created 0600', async () => {
  const previous = process.umask(0o022)
  try {
    const path = join(mkdtempSync(join(tmpdir(), 'tollgate-modes-')), 'tollgate.db')
    const gateway = await startTestGateway({ databasePath: path })
    try {
      // A request writes usage, so the WAL has something in it.
      const client = new OpenAI({ baseURL: gateway.baseUrl, apiKey: gateway.key, maxRetries: 0 })
      await client.chat.completions.create({ model: 'mock-fast', messages: [{ role: 'user', content: 'hi' }] })
      await gateway.settled()
      for (const file of [path, `${path}-wal`, `${path}-shm`]) {
        expect(existsSync(file)).toBe(true)
        expect((statSync(file).mode & 0o777).toString(8)).toBe('600')
      }
    } finally {
      await gateway.stop()
    }
  } finally {
    process.umask(previous)
  }
})

/**
 * ISSUE 22: every file `serve`, `backup` and the lock create is the owner's alone from the moment it exists, and every
 * folder they make too: the data folder was 0755, `<db>.lock` and its journal 0644, the pid file 0644 (and never
 * removed), and a backup world-readable until its last byte was written.
 */
test('serve, its lock, its pid file and a backup are 0600 from the start, the data folder 0700; the pid file goes on exit', async () => {
  const previous = process.umask(0o022) // inherited by the processes spawned below
  try {
    const { dir, config } = makeWorkspace()
    const data = join(dir, 'data')
    const database = join(data, 'tollgate.db')
    writeFileSync(config, readFileSync(config, 'utf8').replace(/^database: .*$/m, `database: sqlite:${database}`))
    const cli = ['bun', 'src/main.ts']
    expect(runCli(cli, ['migrate', '--config', config]).code).toBe(0)
    // Padding, so that the backup below takes long enough to be watched while it is written.
    const padding = new Database(database)
    padding.exec('CREATE TABLE padding (bytes BLOB)')
    const insert = padding.prepare('INSERT INTO padding VALUES (randomblob(1048576))')
    padding.transaction(() => {
      for (let row = 0; row < 150; row++) insert.run()
    })()
    padding.close()
    const server = await startServe(cli, config)
    const modeOf = (path: string) => (statSync(path).mode & 0o777).toString(8)
    try {
      expect(modeOf(data)).toBe('700')
      for (const file of [database, `${database}.lock`, `${database}.lock-journal`, `${config}.pid`])
        expect(`${file}: ${modeOf(file)}`).toBe(`${file}: 600`)
      const target = join(dir, 'backups', 'copy.db')
      const backup = Bun.spawn([...cli, 'backup', target, '--config', config], { stdout: 'pipe', stderr: 'pipe' })
      const seen = new Set<string>()
      while (backup.exitCode === null) {
        if (existsSync(target)) seen.add(modeOf(target))
        await Bun.sleep(1)
      }
      expect(await backup.exited).toBe(0)
      seen.add(modeOf(target))
      expect([...seen]).toEqual(['600'])
      expect(modeOf(join(dir, 'backups'))).toBe('700')
    } finally {
      server.process.kill('SIGTERM')
      await server.process.exited
    }
    expect(existsSync(`${config}.pid`)).toBe(false)
  } finally {
    process.umask(previous)
  }
}, 60_000)

test('reload signals only a tollgate serve: a stale pid file naming another process is refused, that process untouched', async () => {
  const { config } = makeWorkspace()
  const bystander = Bun.spawn(['sleep', '30'])
  try {
    writeFileSync(`${config}.pid`, `${bystander.pid}\n`)
    const reload = runCli(['bun', 'src/main.ts'], ['reload', '--config', config])
    expect(reload.code).toBe(1)
    expect(reload.stderr).toContain('not a tollgate serve')
    await Bun.sleep(200)
    expect(bystander.exitCode).toBeNull() // SIGHUP would have ended it
  } finally {
    bystander.kill()
  }
})
