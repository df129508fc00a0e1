import { afterAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import packageJson from '../package.json' with { type: 'json' }
import { makeWorkspace, runCli, startServe } from './support/cli.ts'

/** Operator mistakes never pass silently: each is refused with one line that says what to fix, and a non-zero exit. */
// Each test starts the CLI up to ten times in turn (~0.5 s each, more on a loaded machine): 5 s is too tight.
setDefaultTimeout(30_000)
const main = resolve(import.meta.dir, '..', 'src', 'main.ts')
const cli = ['bun', main]
const { dir, config } = makeWorkspace()
const run = (...args: string[]) => runCli(cli, [...args, '--config', config])
const servers: Awaited<ReturnType<typeof startServe>>[] = []
afterAll(() => servers.forEach((server) => server.process.kill('SIGTERM')))

/** Run the CLI in a fresh empty folder (no tollgate.yaml there), as an operator in the wrong directory would. */
function runIn(folder: string, args: string[], env: Record<string, string> = {}) {
  const result = Bun.spawnSync([...cli, ...args], {
    cwd: folder,
    env: { ...process.env, TOLLGATE_CONFIG: '', ...env },
    stdout: 'pipe',
    stderr: 'pipe',
  })
  return { code: result.exitCode, stdout: result.stdout.toString(), stderr: result.stderr.toString() }
}
const emptyFolder = () => mkdtempSync(join(tmpdir(), 'tollgate-cwd-'))
/** A one-line message: no stack frames, no source excerpt. */
const expectOneLine = (stderr: string) => {
  expect(stderr.trim().split('\n')).toHaveLength(1)
  expect(stderr).not.toMatch(/^\s+at /m)
}

describe('flags', () => {
  test('an unknown flag is refused with the usage line, and nothing is done', () => {
    expect(run('migrate').code).toBe(0)
    expect(run('account', 'create', 'acme', '--balance', '5').code).toBe(0)
    const model = run('key', 'create', '--account', 'acme', '--model', 'mock-1')
    expect(model.code).toBe(2)
    expect(model.stderr).toContain('unknown option --model for "key create"')
    expect(model.stderr).toContain('usage: tollgate key create --account NAME')
    expect(run('key', 'list', '--json').json()).toEqual([]) // no unrestricted key was made
    const usage = run('usage', '--acount', 'acme')
    expect(usage.code).toBe(2)
    expect(usage.stdout).toBe('') // not the whole gateway's totals
    expect(usage.stderr).toContain('unknown option --acount for "usage"')
  })

  test('a missing value, a value given to a switch, and a missing or extra argument are refused', () => {
    expect(run('key', 'create', '--account').stderr).toContain('--account needs a value')
    expect(run('key', 'create', '--account').code).toBe(2)
    expect(run('account', 'list', '--json=yes').stderr).toContain('--json takes no value')
    const extra = run('usage', 'acme') // meant --account acme
    expect({ code: extra.code, stdout: extra.stdout }).toEqual({ code: 2, stdout: '' })
    expect(extra.stderr).toContain('unexpected argument "acme"')
    expect(run('account', 'credit', 'acme').stderr).toContain('missing USD')
    expect(run('key').stderr).toContain('"key" needs a subcommand')
    expect(run('frobnicate').code).toBe(2)
  })

  test('--help exits 0 and lists every command; --version is the package version; no command is a usage error', () => {
    const help = runCli(cli, ['--help'])
    expect(help.code).toBe(0)
    for (const command of [
      'serve',
      'migrate',
      'backup FILE',
      'status',
      'account create',
      'account credit',
      'account show',
      'account list',
      'key create',
      'key list',
      'key revoke',
      'usage',
      'user create',
      'user list',
      'user delete',
      'user password',
    ]) {
      expect(help.stdout).toContain(`\n  ${command}`)
    }
    expect(runCli(cli, ['key', 'create', '--help'])).toMatchObject({
      code: 0,
      stdout: expect.stringContaining('usage: tollgate key create'),
    })
    expect(runCli(cli, ['--version'])).toMatchObject({ code: 0, stdout: `tollgate ${packageJson.version}\n` })
    expect(runCli(cli, []).code).toBe(2)
  })

  test('a negative budget and an expiry in the past are refused', () => {
    const budget = run('key', 'create', '--account', 'acme', '--budget', '-1')
    expect(budget.code).toBe(2)
    expect(budget.stderr).toContain('--budget must be more than 0')
    const expires = run('key', 'create', '--account', 'acme', '--expires', '2001-01-01T00:00:00Z')
    expect(expires.code).toBe(2)
    expect(expires.stderr).toContain('--expires must be in the future')
    expect(run('key', 'list', '--json').json()).toEqual([])
    expect(run('key', 'create', '--account', 'acme', '--budget', '1', '--expires', '2999-01-01T00:00:00Z').code).toBe(0)
  })
})

describe('the database', () => {
  test('only serve and migrate create one; other commands on a missing one say so and leave nothing behind', () => {
    const folder = emptyFolder()
    const listed = runIn(folder, ['account', 'list'])
    expect(listed.code).not.toBe(0)
    expect(listed.stderr).toContain(`no database at ${join(folder, 'data', 'tollgate.db')}`)
    expect(readdirSync(folder)).toEqual([])
    const typo = runIn(folder, ['acount', 'list'])
    expect(typo.code).toBe(2)
    expect(readdirSync(folder)).toEqual([])
    const migrated = runIn(folder, ['migrate', '--json'])
    expect(migrated.code).toBe(0)
    expect(JSON.parse(migrated.stdout)).toMatchObject({
      migrated: true,
      created: true,
      database: `sqlite:${join(folder, 'data', 'tollgate.db')}`,
    })
    // Every command that touches a database names it, with --json too (on stderr, so stdout stays one JSON document).
    const json = runIn(folder, ['account', 'list', '--json'])
    expect(JSON.parse(json.stdout)).toEqual([])
    expect(json.stderr).toContain(`database sqlite:${join(folder, 'data', 'tollgate.db')}`)
  })

  test('database values outside the documented forms are refused, naming the field, and nothing is created', () => {
    const folder = emptyFolder()
    for (const database of ['mysql://user@db/tollgate', 'sqlite://./x.db', 'file:./x.db', 'sqlite:', 'x.db']) {
      writeFileSync(join(folder, 'tollgate.yaml'), `database: "${database}"\nproviders: [{ name: mock, type: mock }]\n`)
      const result = runIn(folder, ['migrate'])
      expect(result.code).toBe(2)
      expect(result.stderr).toStartWith('tollgate: database: ')
      expect(readdirSync(folder)).toEqual(['tollgate.yaml'])
      const fromEnv = runIn(emptyFolder(), ['migrate'], { TOLLGATE_DATABASE: database })
      expect(fromEnv.code).toBe(2)
      expect(fromEnv.stderr).toStartWith('tollgate: TOLLGATE_DATABASE: ')
    }
    expect(existsSync('/x.db')).toBe(false)
  })
})

describe('start-up failures are one clear line and a non-zero exit; the stack only with --debug', () => {
  test('port in use names the address and PORT / listen.port', async () => {
    const holder = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response('busy') })
    try {
      const result = runIn(dir, ['serve', '--config', config], { PORT: String(holder.port) })
      expect(result.code).toBe(1)
      expect(result.stderr).toContain(`cannot listen on 127.0.0.1:${holder.port}: another process is using that port`)
      expect(result.stderr).toContain('PORT')
      expectOneLine(result.stderr)
      const debug = runIn(dir, ['serve', '--config', config, '--debug'], { PORT: String(holder.port) })
      expect(debug.stderr).toMatch(/^\s+at /m)
    } finally {
      holder.stop(true)
    }
  })

  test('a port out of range, a bad host, a bad log level, an unwritable data folder, an unreachable PostgreSQL', () => {
    const port = runIn(dir, ['serve', '--config', config], { PORT: '99999' })
    expect(port.stderr).toContain('PORT: must be a port number from 0 to 65535')
    expectOneLine(port.stderr)
    const host = runIn(dir, ['serve', '--config', config], { HOST: '203.0.113.7' }) // TEST-NET-3: never this machine's
    expect(host.code).toBe(1)
    expect(host.stderr).toContain('cannot listen on 203.0.113.7:0')
    expectOneLine(host.stderr)
    const level = makeWorkspace('log: { level: loud }\nproviders: [{ name: mock, type: mock }]\n')
    const logLevel = runIn(dir, ['serve', '--config', level.config])
    expect(logLevel.stderr).toContain('log.level: must be one of')
    expectOneLine(logLevel.stderr)
    const folder = emptyFolder()
    writeFileSync(join(folder, 'data'), 'a file where the data folder should be')
    const unwritable = runIn(folder, ['serve'], { PORT: '0' })
    expect(unwritable.code).toBe(1)
    expect(unwritable.stderr).toContain(`cannot open the SQLite database ${join(folder, 'data', 'tollgate.db')}`)
    expectOneLine(unwritable.stderr)
    const postgres = runIn(dir, ['serve', '--config', config], { TOLLGATE_DATABASE: 'postgres://tollgate:secret@127.0.0.1:1/tollgate' })
    expect(postgres.code).toBe(1)
    expect(postgres.stderr).toContain('cannot use the PostgreSQL database postgres://tollgate:***@127.0.0.1:1/tollgate')
    expect(postgres.stderr).not.toContain('secret')
    expectOneLine(postgres.stderr)
  })
})

describe('backup', () => {
  test('tollgate backup FILE writes a consistent copy while serve runs; the copy opens and holds the data', async () => {
    const workspace = makeWorkspace()
    const inWorkspace = (...args: string[]) => runCli(cli, [...args, '--config', workspace.config])
    servers.push(await startServe(cli, workspace.config))
    expect(inWorkspace('account', 'create', 'acme', '--balance', '7').code).toBe(0)
    const target = join(workspace.dir, 'backups', 'copy.db')
    const backup = inWorkspace('backup', target, '--json')
    expect(backup.code).toBe(0)
    expect(backup.json()).toMatchObject({ backup: target })
    expect(inWorkspace('backup', target).stderr).toContain('already exists')
    const restored = runIn(workspace.dir, ['account', 'show', 'acme', '--json'], { TOLLGATE_DATABASE: `sqlite:${target}` })
    expect(JSON.parse(restored.stdout)).toMatchObject({ name: 'acme', balance_usd: '7.00' })
  })
})
